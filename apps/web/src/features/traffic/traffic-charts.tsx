import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatBandwidth, formatCompact as compact } from '../../lib/format.ts';
import type { DashboardTraffic, DomainTraffic, TrafficDay } from '@fleetdesk/contract';

/**
 * The domain's traffic as small charts (decision 070: uPlot, the one chart library, loaded only by the screens
 * that draw). This module is imported lazily, so uPlot is in a chunk of its own that /login and /domains never load.
 */

export type Series<D> = { label: string; color: string; value: (d: D) => number };
export type Chart<D = TrafficDay> = {
  key: string;
  title: string;
  series: Series<D>[];
  /** The y axis's figures (bytes in B, kB, MB…); else compact counts (12k, 1.2M). */
  format?: (n: number) => string;
};

const CHARTS: Chart[] = [
  { key: 'requests', title: 'Requests', series: [{ label: 'Requests', color: '#0d6efd', value: (d) => d.requests }] },
  {
    key: 'page-views',
    title: 'Page views',
    series: [{ label: 'Page views', color: '#6f42c1', value: (d) => d.pageViews }],
  },
  {
    key: 'visits',
    title: 'Unique visitors',
    series: [{ label: 'Visitors', color: '#198754', value: (d) => d.visits }],
  },
  {
    key: 'bandwidth',
    title: 'Bandwidth',
    series: [{ label: 'Bytes', color: '#d63384', value: (d) => d.bytes }],
    format: formatBandwidth,
  },
  { key: 'threats', title: 'Threats', series: [{ label: 'Threats', color: '#dc3545', value: (d) => d.threats }] },
  {
    key: 'status',
    title: 'Responses by status',
    series: [
      { label: '2xx', color: '#198754', value: (d) => d.status.s2xx },
      { label: '3xx', color: '#0dcaf0', value: (d) => d.status.s3xx },
      { label: '4xx', color: '#fd7e14', value: (d) => d.status.s4xx },
      { label: '5xx', color: '#dc3545', value: (d) => d.status.s5xx },
    ],
  },
];

const number = (n: number) => n.toLocaleString('en-US');
const dayLabel = (ts: number) =>
  new Date(ts * 1000).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
const utc = (ts: number) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC');

/** One small day-by-day chart (exported for other lazily loaded chart modules, such as Google's analytics). */
export function TrafficChart<D extends { date: string }>({
  chart,
  days,
  height = 150,
}: {
  chart: Chart<D>;
  days: D[];
  height?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const xs = days.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000);
    const data: uPlot.AlignedData = [xs, ...chart.series.map((s) => days.map(s.value))];
    const width = () => Math.max(200, Math.floor(el.clientWidth));
    const plot = new uPlot(
      {
        width: width(),
        height,
        tzDate: utc,
        legend: { show: chart.series.length > 1, live: false },
        cursor: { drag: { x: false, y: false } },
        scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.1] } },
        axes: [
          {
            space: 56,
            // Ticks on whole days only, named as the days of the series are (UTC).
            incrs: [86_400, 2 * 86_400, 7 * 86_400],
            values: (_u, splits) => splits.map(dayLabel),
          },
          // "250 MB" is wider than "12k".
          { size: chart.format ? 60 : 44, values: (_u, splits) => splits.map(chart.format ?? compact) },
        ],
        series: [
          { value: '{YYYY}-{MM}-{DD}' },
          ...chart.series.map((s) => ({
            label: s.label,
            stroke: s.color,
            width: 2,
            fill: chart.series.length === 1 ? `${s.color}22` : undefined,
            points: { show: days.length <= 7 },
          })),
        ],
      },
      data,
      el,
    );
    const observer = new ResizeObserver(() => plot.setSize({ width: width(), height }));
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [chart, days, height]);
  return <div ref={box} className="traffic-chart-plot" />;
}

/** Small charts side by side, each with its title and its total (the traffic's and Google's analytics). */
export function ChartGrid<D extends { date: string }>({
  charts,
  days,
  totals,
  testIdPrefix,
  col = 'col-12 col-md-6 col-xl-4',
}: {
  charts: Chart<D>[];
  days: D[];
  totals: Record<string, string>;
  testIdPrefix: string;
  col?: string;
}) {
  return (
    <div className="row g-3">
      {charts.map((chart) => (
        <figure key={chart.key} className={`${col} mb-0`} data-testid={`${testIdPrefix}-chart-${chart.key}`}>
          <div className="border rounded p-2 h-100">
            <figcaption className="d-flex justify-content-between gap-2 small mb-1">
              <span className="fw-semibold">{chart.title}</span>
              <span className="text-body-secondary" data-testid={`${testIdPrefix}-total`}>
                {totals[chart.key]}
              </span>
            </figcaption>
            <TrafficChart chart={chart} days={days} />
          </div>
        </figure>
      ))}
    </div>
  );
}

export default function TrafficCharts({ traffic }: { traffic: DomainTraffic }) {
  const t = traffic.totals;
  const totals: Record<string, string> = {
    requests: number(t.requests),
    'page-views': number(t.pageViews),
    visits: number(t.visits),
    bandwidth: formatBandwidth(t.bytes),
    threats: number(t.threats),
    status: `${number(t.status.s4xx + t.status.s5xx)} errors`,
  };
  return <ChartGrid charts={CHARTS} days={traffic.days} totals={totals} testIdPrefix="traffic" />;
}

const FLEET_CHART: Chart<DashboardTraffic['days'][number]> = {
  key: 'fleet',
  title: 'Fleet requests',
  series: [
    { label: 'Requests', color: '#0d6efd', value: (d) => d.requests },
    { label: 'Page views', color: '#6f42c1', value: (d) => d.pageViews },
  ],
};

/** The dashboard's chart: the fleet's requests and page views per day. */
export function FleetTrafficChart({ days }: { days: DashboardTraffic['days'] }) {
  return <TrafficChart chart={FLEET_CHART} days={days} height={140} />;
}
