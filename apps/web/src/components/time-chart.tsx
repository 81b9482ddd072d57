import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatCompact as compact } from '../lib/format.ts';

/**
 * A small chart of figures over time (uPlot, decision 070): the Jobs screen's jobs per hour and a fleet run's
 * progress and budget. Imported lazily only, so uPlot stays in the charts chunk that /login and /domains never load.
 */
export type TimeSeries = { label: string; color: string; values: (number | null)[] };

const hhmm = (ts: number) =>
  new Date(ts * 1000).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' });

export default function TimeChart({
  xs,
  series,
  height = 160,
  bars = false,
  yMax,
  testId,
}: {
  /** Seconds since the epoch (UTC). */
  xs: number[];
  series: TimeSeries[];
  height?: number;
  /** Stacked-looking bars (counts per period) rather than lines. */
  bars?: boolean;
  /** A fixed top for the y axis (a share in %), else the data's. */
  yMax?: number;
  testId?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const width = () => Math.max(200, Math.floor(el.clientWidth));
    const path = bars ? uPlot.paths.bars?.({ size: [0.8, 40] }) : undefined;
    const plot = new uPlot(
      {
        width: width(),
        height,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        legend: { show: true, live: false },
        cursor: { drag: { x: false, y: false } },
        scales: { y: { range: (_u, _min, max) => [0, yMax ?? Math.max(1, max) * 1.1] } },
        axes: [
          // Ticks on whole minutes at least: a short run's points are a minute apart.
          {
            space: 60,
            incrs: [60, 300, 600, 1800, 3600, 7200, 3 * 3600, 6 * 3600],
            values: (_u, splits) => splits.map(hhmm),
          },
          { size: 44, values: (_u, splits) => splits.map(compact) },
        ],
        series: [
          { value: '{YYYY}-{MM}-{DD} {HH}:{mm} UTC' },
          ...series.map((s) => ({
            label: s.label,
            stroke: s.color,
            width: bars ? 1 : 2,
            fill: bars ? s.color : undefined,
            paths: path,
            points: { show: false },
          })),
        ],
      },
      [xs, ...series.map((s) => s.values)],
      el,
    );
    const observer = new ResizeObserver(() => plot.setSize({ width: width(), height }));
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [xs, series, height, bars, yMax]);
  return <div ref={box} className="traffic-chart-plot" data-testid={testId} />;
}
