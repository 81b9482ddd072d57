export const PAGE_SIZE = 20;
export const PAGER_MAX_PAGES = 10;
export const TOAST_DELAY_MS = 5000;
export const NAME_MAX = 200;
export const SEARCH_MAX = 200;
export const TEXT_MAX = 2000;

/** What a response carries in place of a stored secret. Sending it back keeps the stored value. */
export const SECRET_MASK = '••••••••';

export const STATUSES = ['active', 'inactive'] as const;
export type Status = (typeof STATUSES)[number];

/** Field names that hold secrets, anywhere: redacted from audit diffs and never returned in clear. */
export const SECRET_FIELDS = [
  'password',
  'passwordHash',
  'token',
  'globalAPIKey',
  'emailPassword',
  'apiKey',
  'apiToken',
  'rsaKey',
  'ispmanagerPassword',
  'directAdminPassword',
] as const;

export const REDACTED = '[redacted]';

/** How many ids the browser may send; larger selections are sent as the filter (the "select all N matching"). */
export const FLEET_IDS_MAX = 5_000;

/** A zip of zone files: the domains list's selection (ticked ids, or its filter), at most this many. */
export const ZONE_EXPORT_MAX = 5_000;

/** Domains whose registration ends within this many days count as expiring soon (dashboard, list marks). */
export const EXPIRING_WITHIN_DAYS = 30;
