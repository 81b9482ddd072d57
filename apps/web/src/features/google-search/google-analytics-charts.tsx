import type { GoogleAnalytics } from '@fleetdesk/contract';
import { ChartGrid, type Chart } from '../traffic/traffic-charts.tsx';

/**
 * The domain's Search Analytics of the last 28 days as small charts, drawn by the traffic charts' uPlot component
 * (decision 070). Imported lazily, so uPlot stays in the chunk of the screens that draw.
 */
type Day = { date: string; clicks: number; impressions: number; ctr: number; position: number };

const CHARTS: Chart<Day>[] = [
  { key: 'clicks', title: 'Clicks', series: [{ label: 'Clicks', color: '#0d6efd', value: (d) => d.clicks }] },
  {
    key: 'impressions',
    title: 'Impressions',
    series: [{ label: 'Impressions', color: '#6f42c1', value: (d) => d.impressions }],
  },
  { key: 'ctr', title: 'CTR (%)', series: [{ label: 'CTR', color: '#198754', value: (d) => d.ctr * 100 }] },
  {
    key: 'position',
    title: 'Average position',
    series: [{ label: 'Position', color: '#fd7e14', value: (d) => d.position }],
  },
];

const number = (n: number) => n.toLocaleString('en-US');

export default function GoogleAnalyticsCharts({ analytics }: { analytics: GoogleAnalytics }) {
  const days: Day[] = analytics.days.map((r) => ({ date: r.key, ...r }));
  const clicks = days.reduce((s, d) => s + d.clicks, 0);
  const impressions = days.reduce((s, d) => s + d.impressions, 0);
  const position = impressions ? days.reduce((s, d) => s + d.position * d.impressions, 0) / impressions : 0;
  const totals: Record<string, string> = {
    clicks: number(clicks),
    impressions: number(impressions),
    ctr: impressions ? `${((clicks / impressions) * 100).toFixed(1)} %` : '—',
    position: impressions ? position.toFixed(1) : '—',
  };
  return <ChartGrid charts={CHARTS} days={days} totals={totals} testIdPrefix="google" col="col-12 col-md-6" />;
}
