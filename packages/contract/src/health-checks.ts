/**
 * Fleet health (issue 28): checks per domain across the registrar, Cloudflare, hosting, the server, Yandex
 * Webmaster and Google Search Console. "na" is "not applicable" (the check's inputs are missing: no zone, no panel,
 * no account, no property); it is never a problem.
 */
export const HEALTH_STATES = ['ok', 'warning', 'failing', 'unknown', 'na'] as const;
export type HealthState = (typeof HEALTH_STATES)[number];

export const HEALTH_STATE_LABELS: Record<HealthState, string> = {
  ok: 'OK',
  warning: 'Warning',
  failing: 'Failing',
  unknown: 'Unknown',
  na: 'Not applicable',
};

/** Worst first: the domain's health is its worst check. */
export const HEALTH_SEVERITY: Record<HealthState, number> = { failing: 4, warning: 3, unknown: 2, ok: 1, na: 0 };

export const worstHealth = (states: HealthState[]): HealthState =>
  states.reduce<HealthState>((w, s) => (HEALTH_SEVERITY[s] > HEALTH_SEVERITY[w] ? s : w), 'na');

/** A state that counts as a problem in the list's badge. */
export const isHealthProblem = (s: HealthState) => s === 'failing' || s === 'warning' || s === 'unknown';

/**
 * The checks. `cheap` ones (the site over HTTPS, the zone's DNS records, what the console already stores) run
 * every cheap interval; the others (several provider calls each) every full interval. `fix` names the existing
 * single-domain action that repairs the check, when there is one.
 */
export const HEALTH_CHECKS = [
  { key: 'registrar_expiry', plane: 'Registrar', label: 'Registration expiry', cheap: true, fix: null },
  {
    key: 'registrar_ns',
    plane: 'Registrar',
    label: 'Name servers at the registrar',
    cheap: false,
    fix: 'registrar_ns',
  },
  { key: 'cf_zone', plane: 'Cloudflare', label: 'Zone active', cheap: false, fix: null },
  { key: 'cf_ssl', plane: 'Cloudflare', label: 'SSL mode', cheap: false, fix: 'ssl' },
  { key: 'cf_tls13', plane: 'Cloudflare', label: 'TLS 1.3', cheap: false, fix: 'tls13' },
  { key: 'cf_waf', plane: 'Cloudflare', label: 'WAF rules', cheap: false, fix: 'waf_push' },
  { key: 'cf_dns', plane: 'Cloudflare', label: 'Apex and www records', cheap: true, fix: null },
  // Reads the kept traffic (no provider call), so it runs with the cheap ones.
  { key: 'traffic_fell', plane: 'Cloudflare', label: 'Traffic fell', cheap: true, fix: null },
  { key: 'site_https', plane: 'Hosting', label: 'Site over HTTPS', cheap: true, fix: null },
  { key: 'site_panel', plane: 'Hosting', label: 'Site on the panel', cheap: false, fix: null },
  { key: 'site_content', plane: 'Hosting', label: 'Content directory', cheap: false, fix: null },
  { key: 'server', plane: 'Server', label: 'Online, space, capacity', cheap: true, fix: null },
  { key: 'yandex_host', plane: 'Yandex Webmaster', label: 'Yandex host', cheap: false, fix: 'yandex_verify' },
  {
    key: 'google_property',
    plane: 'Google',
    label: 'Property verified',
    cheap: false,
    fix: 'google_verify',
  },
  {
    key: 'google_sitemaps',
    plane: 'Google',
    label: 'Sitemap has errors',
    cheap: false,
    fix: 'google_sitemaps',
  },
] as const;
export type HealthCheckKey = (typeof HEALTH_CHECKS)[number]['key'];
export type HealthFix = NonNullable<(typeof HEALTH_CHECKS)[number]['fix']>;
export const HEALTH_CHECK_KEYS = HEALTH_CHECKS.map((c) => c.key) as [HealthCheckKey, ...HealthCheckKey[]];
export const healthCheckOf = (key: string) => HEALTH_CHECKS.find((c) => c.key === key);

/** Days the "Traffic fell" check compares: the week to yesterday against the week before (decision 072). */
export const TRAFFIC_FALL_DAYS = 14;

/** The checks the console can fix: each one's single-domain Fix, and "Fix all" over the domains failing it. */
export const HEALTH_FIXABLE_CHECKS = [
  'registrar_ns',
  'cf_ssl',
  'cf_tls13',
  'cf_waf',
  'yandex_host',
  'google_property',
  'google_sitemaps',
] as const;
export type HealthFixableCheck = (typeof HEALTH_FIXABLE_CHECKS)[number];
export const isHealthFixable = (key: string): key is HealthFixableCheck =>
  (HEALTH_FIXABLE_CHECKS as readonly string[]).includes(key);

/**
 * The fleet action of "Fix all" for a failing check: a fleet plan over the failing domains whose value is each
 * domain's own expected value, read when the plan is made (decision 045).
 */
export const HEALTH_FIX_ALL: Partial<Record<HealthCheckKey, { kind: 'health_fix'; check: HealthFixableCheck }>> =
  Object.fromEntries(HEALTH_FIXABLE_CHECKS.map((check) => [check, { kind: 'health_fix' as const, check }] as const));

/** The list's health filters (in the URL like the other filters). */
export const HEALTH_FILTER_VALUES = ['ok', 'warning', 'failing', 'unknown', 'problems', 'unchecked'] as const;
export type HealthFilter = (typeof HEALTH_FILTER_VALUES)[number];
/** One check's states the list filters by ("problems": failing, warning or unknown). */
export const CHECK_STATE_FILTER_VALUES = [...HEALTH_STATES, 'problems'] as const;
export type CheckStateFilter = (typeof CHECK_STATE_FILTER_VALUES)[number];
/** The list's value for one check's state, as domains.health_checks holds it ("cf_ssl:failing"). */
export const healthMark = (check: string, state: string) => `${check}:${state}`;

/** How many of a domain's checks fail, warn and cannot be read: each number for what it is, never one sum. */
export type HealthCounts = { failing: number; warning: number; unknown: number };
const PROBLEM_STATES = ['failing', 'warning', 'unknown'] as const;

/** The counts of a domain's checks from their states. */
export function healthCountsOf(states: readonly HealthState[]): HealthCounts {
  const c: HealthCounts = { failing: 0, warning: 0, unknown: 0 };
  for (const s of states) if (s === 'failing' || s === 'warning' || s === 'unknown') c[s]++;
  return c;
}
/** The counts from the stored marks ("cf_ssl:failing", domains.health_checks). */
export const healthCountsOfMarks = (marks: readonly string[]): HealthCounts =>
  healthCountsOf(marks.map((m) => m.slice(m.lastIndexOf(':') + 1) as HealthState));

/** "4 failing · 1 warning · 2 unknown": each number for what it is (worst first); '' when none. */
export function healthCountsText(c: HealthCounts): string {
  return PROBLEM_STATES.filter((s) => c[s] > 0)
    .map((s) => `${c[s]} ${s}`)
    .join(' · ');
}

/** "4 failing · 1 warning · 2 unknown": each number of a domain's checks for what it is (problems, worst first). */
export const healthProblemSummary = (states: readonly HealthState[]): string =>
  healthCountsText(healthCountsOf(states));
