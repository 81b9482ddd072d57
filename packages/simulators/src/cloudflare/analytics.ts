import { createHash } from 'node:crypto';
import {
  buildSchema,
  execute,
  GraphQLError,
  GraphQLScalarType,
  parse,
  specifiedRules,
  validate,
  VariablesInAllowedPositionRule,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';
import type { CloudflareSimState, SimAccount, SimZone } from './sim-state.ts';

/**
 * The GraphQL Analytics API (POST /client/v4/graphql), for the two datasets the console reads:
 * `httpRequests1dGroups` (a day each) and `httpRequests1hGroups` (an hour each) under `viewer.zones`.
 * The schema below is the part of Cloudflare's schema these datasets use (its scalars are lower-case: `string`,
 * `uint64`, with `Date` and `Time`); graphql-js parses, validates and runs the query, so an unknown field or a
 * malformed query is refused as Cloudflare refuses it, with `data: null` and an `errors` array.
 * The series are seeded per zone (and per day or hour), so the same zone always answers the same numbers.
 */

const SDL = /* GraphQL */ `
  scalar string
  scalar uint64
  scalar Date
  scalar Time

  type Query {
    viewer: Viewer
  }
  type Viewer {
    zones(filter: ZoneFilter_InputObject): [Zone!]!
  }
  input ZoneFilter_InputObject {
    zoneTag: string
    zoneTag_in: [string!]
  }
  type Zone {
    zoneTag: string!
    httpRequests1dGroups(
      limit: uint64!
      filter: ZoneHttpRequests1dGroupsFilter_InputObject
      orderBy: [ZoneHttpRequests1dGroupsOrderBy!]
    ): [ZoneHttpRequests1dGroups!]!
    httpRequests1hGroups(
      limit: uint64!
      filter: ZoneHttpRequests1hGroupsFilter_InputObject
      orderBy: [ZoneHttpRequests1hGroupsOrderBy!]
    ): [ZoneHttpRequests1hGroups!]!
  }
  input ZoneHttpRequests1dGroupsFilter_InputObject {
    date: Date
    date_geq: Date
    date_gt: Date
    date_leq: Date
    date_lt: Date
  }
  input ZoneHttpRequests1hGroupsFilter_InputObject {
    datetime: Time
    datetime_geq: Time
    datetime_gt: Time
    datetime_leq: Time
    datetime_lt: Time
  }
  enum ZoneHttpRequests1dGroupsOrderBy {
    date_ASC
    date_DESC
    sum_requests_ASC
    sum_requests_DESC
  }
  enum ZoneHttpRequests1hGroupsOrderBy {
    datetime_ASC
    datetime_DESC
    sum_requests_ASC
    sum_requests_DESC
  }
  type ZoneHttpRequests1dGroups {
    dimensions: ZoneHttpRequests1dGroupsDimensions
    sum: ZoneHttpRequestsSum
    uniq: ZoneHttpRequestsUniq
  }
  type ZoneHttpRequests1hGroups {
    dimensions: ZoneHttpRequests1hGroupsDimensions
    sum: ZoneHttpRequestsSum
    uniq: ZoneHttpRequestsUniq
  }
  type ZoneHttpRequests1dGroupsDimensions {
    date: Date!
  }
  type ZoneHttpRequests1hGroupsDimensions {
    datetime: Time!
  }
  type ZoneHttpRequestsSum {
    requests: uint64!
    cachedRequests: uint64!
    encryptedRequests: uint64!
    pageViews: uint64!
    threats: uint64!
    bytes: uint64!
    cachedBytes: uint64!
    responseStatusMap: [ResponseStatusMapElem!]!
  }
  type ResponseStatusMapElem {
    edgeResponseStatus: uint64!
    requests: uint64!
  }
  type ZoneHttpRequestsUniq {
    uniques: uint64!
  }
`;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * What each dataset allows (the Free plan's; the settings node's `notOlderThan`, `maxDuration`, `maxPageSize`).
 * Cloudflare words a refusal as "cannot request data older than 2678400s" (its error-responses page).
 */
export const ANALYTICS_LIMITS = {
  httpRequests1dGroups: { notOlderThanS: 365 * 86_400, maxDurationS: 31 * 86_400, maxPageSize: 10_000 },
  httpRequests1hGroups: { notOlderThanS: 7 * 86_400, maxDurationS: 3 * 86_400, maxPageSize: 10_000 },
} as const;

/**
 * How a zone's series runs: `dailyRequests` is an ordinary day's volume (default: seeded from the zone id);
 * `change` scales it from `since` on (0.3 for a fall of 70 %), so a test or the demo can make traffic fall.
 */
export type TrafficShape = NonNullable<SimZone['traffic']>;

interface Sums {
  requests: number;
  cachedRequests: number;
  encryptedRequests: number;
  pageViews: number;
  threats: number;
  bytes: number;
  cachedBytes: number;
  responseStatusMap: { edgeResponseStatus: number; requests: number }[];
  uniques: number;
}

/** A number in [0, 1) from the text: the same text always gives the same number. */
function unit(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) / 2 ** 32;
}

function baseOf(zone: SimZone, shape: TrafficShape | undefined): number {
  if (shape?.dailyRequests !== undefined) return shape.dailyRequests;
  // Between about 800 and 60,000 requests a day, spread evenly on a log scale.
  return Math.round(800 * Math.exp(unit(`base:${zone.id}`) * Math.log(75)));
}

/** The figures of one period (a day, or an hour with `share` of the day's traffic). */
function sumsFor(zone: SimZone, key: string, dayRequests: number, share: number): Sums {
  const r = (what: string) => unit(`${what}:${zone.id}:${key}`);
  const requests = Math.max(0, Math.round(dayRequests * share * (0.85 + 0.3 * r('requests'))));
  const threats = Math.round(requests * (0.004 + 0.02 * r('threats')));
  const pageViews = Math.round(requests * (0.3 + 0.25 * r('pageViews')));
  const uniques = Math.round(requests * (0.12 + 0.12 * r('uniques')));
  const cachedRequests = Math.round(requests * (0.35 + 0.3 * r('cached')));
  const bytes = Math.round(requests * (18_000 + 40_000 * r('bytes')));
  // Status codes: mostly 200, some redirects and not-modified, a few 404, the threats answered 403, rare 5xx.
  const s5xx = Math.round(requests * 0.004 * r('5xx'));
  const s404 = Math.round(requests * (0.01 + 0.04 * r('404')));
  const s301 = Math.round(requests * (0.01 + 0.03 * r('301')));
  const s304 = Math.round(requests * (0.02 + 0.06 * r('304')));
  const s200 = Math.max(0, requests - s5xx - s404 - s301 - s304 - threats);
  const statusMap = [
    { edgeResponseStatus: 200, requests: s200 },
    { edgeResponseStatus: 301, requests: s301 },
    { edgeResponseStatus: 304, requests: s304 },
    { edgeResponseStatus: 403, requests: threats },
    { edgeResponseStatus: 404, requests: s404 },
    { edgeResponseStatus: 503, requests: s5xx },
  ].filter((s) => s.requests > 0);
  return {
    requests,
    cachedRequests,
    encryptedRequests: Math.round(requests * 0.97),
    pageViews,
    threats,
    bytes,
    cachedBytes: Math.round(bytes * (cachedRequests / Math.max(1, requests))),
    responseStatusMap: statusMap,
    uniques,
  };
}

/** Requests on the given day (UTC midnight, ms): a weekly rhythm, a slow drift and the zone's own change. */
function dayRequestsOf(zone: SimZone, dayMs: number, shape: TrafficShape | undefined): number {
  const weekday = new Date(dayMs).getUTCDay();
  const weekly = weekday === 0 || weekday === 6 ? 0.72 : 1 + 0.06 * Math.sin(weekday);
  const drift = 1 + 0.15 * Math.sin(dayMs / DAY_MS / 23 + unit(`phase:${zone.id}`) * 6);
  const changed = shape?.change && dayMs >= Date.parse(`${shape.change.since}T00:00:00Z`) ? shape.change.factor : 1;
  return baseOf(zone, shape) * weekly * drift * changed;
}

/** An hour's part of its day: quiet at night, busiest in the afternoon (UTC); the 24 parts add up to 1. */
function hourShare(hour: number): number {
  const weights = Array.from({ length: 24 }, (_, h) => 0.35 + Math.max(0, Math.sin(((h - 6) / 24) * 2 * Math.PI)));
  const total = weights.reduce((a, b) => a + b, 0);
  return (weights[hour] ?? 0) / total;
}

/** A GraphQL error as Cloudflare sends it: message, the path to the node, and a timestamp in `extensions`. */
function cfError(message: string, path?: (string | number)[]): GraphQLError {
  return new GraphQLError(message, { path, extensions: { timestamp: new Date().toISOString() } });
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

function scalar(name: string, check: (v: unknown) => boolean, what: string): GraphQLScalarType {
  const accept = (v: unknown) => {
    if (!check(v)) throw new GraphQLError(`error parsing args: ${name} expects ${what}, got ${JSON.stringify(v)}`);
    return v;
  };
  return new GraphQLScalarType({
    name,
    serialize: (v) => v,
    parseValue: accept,
    parseLiteral(ast) {
      if (ast.kind === 'StringValue') return accept(ast.value);
      if (ast.kind === 'IntValue') return accept(Number(ast.value));
      throw new GraphQLError(`error parsing args: ${name} expects ${what}`);
    },
  });
}

let cachedSchema: GraphQLSchema | undefined;
function schema(): GraphQLSchema {
  if (cachedSchema) return cachedSchema;
  const s = buildSchema(SDL);
  const types = s.getTypeMap();
  const replace = (t: GraphQLScalarType) => Object.assign(types[t.name] as GraphQLScalarType, t.toConfig());
  replace(scalar('string', (v) => typeof v === 'string', 'a string'));
  replace(scalar('uint64', (v) => typeof v === 'number' && Number.isInteger(v) && v >= 0, 'an unsigned integer'));
  replace(
    scalar(
      'Date',
      (v) => typeof v === 'string' && DATE_RE.test(v) && !Number.isNaN(Date.parse(v)),
      'a date (YYYY-MM-DD)',
    ),
  );
  replace(scalar('Time', (v) => typeof v === 'string' && !Number.isNaN(Date.parse(v)), 'an RFC 3339 time'));
  cachedSchema = s;
  return s;
}

// Cloudflare accepts variables declared `String!` where its schema says `string` (many published queries do),
// so the rule that would refuse that one mismatch is left out; every other rule of the spec applies.
const RULES = specifiedRules.filter((r) => r !== VariablesInAllowedPositionRule);

interface Bounds {
  from: number;
  to: number;
}

/** The [from, to) range of a filter: `_geq`/`_gt` and `_leq`/`_lt` (or the exact value); step is a day or an hour. */
function boundsOf(filter: Record<string, unknown> | undefined, field: string, step: number): Partial<Bounds> {
  const at = (k: string) => {
    const v = filter?.[`${field}${k}`];
    return typeof v === 'string' ? Date.parse(DATE_RE.test(v) ? `${v}T00:00:00Z` : v) : undefined;
  };
  const exact = at('');
  if (exact !== undefined) return { from: exact, to: exact + step };
  const geq = at('_geq');
  const gt = at('_gt');
  const leq = at('_leq');
  const lt = at('_lt');
  return {
    from: geq ?? (gt !== undefined ? gt + step : undefined),
    to: lt ?? (leq !== undefined ? leq + step : undefined),
  };
}

function groupsOf(
  zone: SimZone,
  dataset: 'httpRequests1dGroups' | 'httpRequests1hGroups',
  args: { limit: number; filter?: Record<string, unknown>; orderBy?: string[] },
  path: (string | number)[],
  shape: TrafficShape | undefined,
  now: number,
) {
  const daily = dataset === 'httpRequests1dGroups';
  const step = daily ? DAY_MS : HOUR_MS;
  const limits = ANALYTICS_LIMITS[dataset];
  const field = daily ? 'date' : 'datetime';
  const { from, to } = boundsOf(args.filter, field, step);
  if (from === undefined) {
    throw cfError(`a filter on ${field} with a lower bound (${field}_geq or ${field}_gt) is required`, path);
  }
  if (args.limit > limits.maxPageSize) {
    throw cfError(`limit must not be greater than ${limits.maxPageSize}`, path);
  }
  const end = to ?? now;
  if (from < now - limits.notOlderThanS * 1000 - step) {
    throw cfError(`cannot request data older than ${limits.notOlderThanS}s`, path);
  }
  if (end - from > limits.maxDurationS * 1000 + step) {
    throw cfError(`cannot request a time range wider than ${limits.maxDurationS}s`, path);
  }
  const rows: { at: number; sums: Sums }[] = [];
  // Only an active zone's traffic passes through Cloudflare: a pending one counts nothing (and answers no groups).
  if (zone.status !== 'active') return [];
  const first = Math.ceil(from / step) * step;
  for (let t = first; t < end && t <= now; t += step) {
    if (daily) {
      rows.push({
        at: t,
        sums: sumsFor(zone, new Date(t).toISOString().slice(0, 10), dayRequestsOf(zone, t, shape), 1),
      });
    } else {
      const day = Math.floor(t / DAY_MS) * DAY_MS;
      const hour = new Date(t).getUTCHours();
      rows.push({
        at: t,
        sums: sumsFor(zone, new Date(t).toISOString(), dayRequestsOf(zone, day, shape), hourShare(hour)),
      });
    }
  }
  // A zone with no traffic has no groups at all, as Cloudflare answers.
  const nonEmpty = rows.filter((r) => r.sums.requests > 0);
  const order = args.orderBy?.[0];
  if (order?.endsWith('_DESC')) nonEmpty.reverse();
  if (order?.startsWith('sum_requests')) {
    nonEmpty.sort((a, b) => (a.sums.requests - b.sums.requests) * (order.endsWith('_DESC') ? -1 : 1));
  }
  return nonEmpty.slice(0, args.limit).map((r) => {
    const { uniques, ...sum } = r.sums;
    return {
      dimensions: daily
        ? { date: new Date(r.at).toISOString().slice(0, 10) }
        : { datetime: new Date(r.at).toISOString().replace('.000Z', 'Z') },
      sum,
      uniq: { uniques },
    };
  });
}

export interface GraphqlAnswer {
  status: number;
  body: { data: unknown; errors: unknown[] | null };
}

/** Answers one POST /graphql body for `account`; every refusal is a GraphQL error in a 200 answer, as Cloudflare does. */
export function answerGraphql(
  state: CloudflareSimState,
  account: SimAccount,
  rawBody: unknown,
  now = Date.now(),
): GraphqlAnswer {
  const refuse = (message: string, status = 200): GraphqlAnswer => ({
    status,
    body: { data: null, errors: [{ message, path: null, extensions: { timestamp: new Date(now).toISOString() } }] },
  });
  if (typeof rawBody !== 'object' || rawBody === null || Array.isArray(rawBody)) {
    return refuse('failed to parse the request body: expected a JSON object with a query', 400);
  }
  const { query, variables, operationName } = rawBody as Record<string, unknown>;
  if (typeof query !== 'string' || query.trim() === '') return refuse('query is required', 400);
  if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
    return refuse('variables must be a JSON object', 400);
  }
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch (err) {
    return refuse(`error parsing query: ${(err as Error).message}`);
  }
  const problems = validate(schema(), document, RULES);
  if (problems.length > 0) {
    return {
      status: 200,
      body: {
        data: null,
        errors: problems.map((p) => ({
          message: p.message,
          path: null,
          extensions: { timestamp: new Date(now).toISOString() },
        })),
      },
    };
  }
  const rootValue = {
    viewer: () => ({
      zones: ({ filter }: { filter?: { zoneTag?: string; zoneTag_in?: string[] } }) => {
        const tags = filter?.zoneTag !== undefined ? [filter.zoneTag] : (filter?.zoneTag_in ?? []);
        if (tags.length === 0) throw cfError('a filter on zoneTag or zoneTag_in is required', ['viewer', 'zones']);
        // A zone-scoped query can include up to 10 zones (Cloudflare's global limits).
        if (tags.length > 10) throw cfError('a query can include up to 10 zones', ['viewer', 'zones']);
        return tags.map((tag, index) => {
          const zone = state.zones.get(tag);
          // Another account's zone is refused as an unknown one: nothing says it exists.
          if (!zone || zone.accountId !== account.id) {
            throw cfError(`zone '${tag}' does not exist or the actor does not have access to the path`, [
              'viewer',
              'zones',
              index,
            ]);
          }
          const path = ['viewer', 'zones', index];
          return {
            zoneTag: zone.id,
            httpRequests1dGroups: (args: { limit: number; filter?: Record<string, unknown>; orderBy?: string[] }) =>
              groupsOf(zone, 'httpRequests1dGroups', args, [...path, 'httpRequests1dGroups'], zone.traffic, now),
            httpRequests1hGroups: (args: { limit: number; filter?: Record<string, unknown>; orderBy?: string[] }) =>
              groupsOf(zone, 'httpRequests1hGroups', args, [...path, 'httpRequests1hGroups'], zone.traffic, now),
          };
        });
      },
    }),
  };
  const result = execute({
    schema: schema(),
    document,
    rootValue,
    variableValues: (variables ?? undefined) as Record<string, unknown> | undefined,
    operationName: typeof operationName === 'string' ? operationName : undefined,
  });
  if (result instanceof Promise) return refuse('internal error');
  if (result.errors?.length) {
    return {
      status: 200,
      body: {
        data: null,
        errors: result.errors.map((e) => ({
          message: e.message,
          path: e.path ?? null,
          extensions: { timestamp: new Date(now).toISOString() },
        })),
      },
    };
  }
  return { status: 200, body: { data: result.data ?? null, errors: null } };
}
