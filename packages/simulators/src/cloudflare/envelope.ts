/**
 * Cloudflare's v4 response envelope and the error codes the simulator answers with.
 *
 * Confidence follows ../shared/docs/integrations/cloudflare.md: codes marked [O] were seen in real responses
 * quoted in public issue threads, [U] are plausible placeholders whose exact number is unconfirmed. The client
 * never depends on a [U] number; it only shows it to the operator.
 */

export interface CfMessage {
  code: number;
  message: string;
  error_chain?: CfMessage[];
  source?: { pointer: string };
}

export interface ResultInfo {
  page: number;
  per_page: number;
  count: number;
  total_count: number;
  total_pages: number;
}

export interface Envelope {
  success: boolean;
  errors: CfMessage[];
  messages: CfMessage[];
  result: unknown;
  result_info?: ResultInfo;
}

/** A failure answered as `{success:false, errors, messages:[], result:null}` with the given HTTP status. */
export class CfError extends Error {
  constructor(
    readonly status: number,
    readonly errors: CfMessage[],
    readonly headers: Record<string, string> = {},
  ) {
    super(errors.map((e) => `${e.code} ${e.message}`).join('; '));
  }
}

export function ok(result: unknown, resultInfo?: ResultInfo): Envelope {
  const body: Envelope = { success: true, errors: [], messages: [], result };
  if (resultInfo) body.result_info = resultInfo;
  return body;
}

export function failure(errors: CfMessage[]): Envelope {
  return { success: false, errors, messages: [], result: null };
}

export const cfErrors = {
  /** [O] 7003 + 7000, e.g. "Could not route to /client/v4/zones/abc, perhaps your object identifier is invalid?". */
  noRoute(path: string, status = 400): CfError {
    return new CfError(status, [
      { code: 7003, message: `Could not route to ${path}, perhaps your object identifier is invalid?` },
      { code: 7000, message: 'No route for that URI' },
    ]);
  },
  /** [U] the method exists on no route at this path. */
  methodNotAllowed(method: string): CfError {
    return new CfError(405, [{ code: 7001, message: `Method ${method} not allowed for this route` }]);
  },
  /** [O] 403 10000: bad token or missing permission. */
  authentication(): CfError {
    return new CfError(403, [{ code: 10000, message: 'Authentication error' }]);
  },
  /** [O] 9103, seen with a wrong email/global key pair (HTTP status [U], 403 chosen). */
  unknownKey(): CfError {
    return new CfError(403, [{ code: 9103, message: 'Unknown X-Auth-Key or X-Auth-Email' }]);
  },
  /** [O] 400 6003 with a chain naming the bad headers (6102 email, 6103 key, 6111 Authorization). */
  invalidHeaders(chain: CfMessage[]): CfError {
    return new CfError(400, [{ code: 6003, message: 'Invalid request headers', error_chain: chain }]);
  },
  /** [O] 6007 */
  malformedJson(): CfError {
    return new CfError(400, [{ code: 6007, message: 'Malformed JSON in request body' }]);
  },
  /** [O] 971, Cloudflare's rate-limit answer. */
  rateLimited(retryAfterSeconds: number): CfError {
    return new CfError(429, [{ code: 971, message: 'Please wait and consider throttling your request speed' }], {
      'retry-after': String(retryAfterSeconds),
    });
  },
  /** [U] a generic request validation failure (bad page/per_page, bad filter value). */
  badParam(message: string): CfError {
    return new CfError(400, [{ code: 1019, message }]);
  },
  /** [O] 1001 on GET /accounts with an account-owned token. */
  accountOwnedToken(): CfError {
    return new CfError(400, [{ code: 1001, message: 'List accounts endpoint does not support account owned tokens.' }]);
  },
  /** [O] 1061 */
  zoneExists(name: string): CfError {
    return new CfError(400, [{ code: 1061, message: `${name} already exists` }]);
  },
  /** [U] */
  invalidZoneName(name: string): CfError {
    return new CfError(400, [{ code: 1099, message: `Invalid domain name: ${name}` }]);
  },
  /** [U] number; text seen in real answers. */
  zoneCreatePermission(): CfError {
    return new CfError(403, [
      {
        code: 1068,
        message:
          'Requires permission "com.cloudflare.api.account.zone.create" to create zones for the selected account',
      },
    ]);
  },
  /** [O] 1007 "Invalid value for zone setting …". */
  invalidSettingValue(setting: string): CfError {
    return new CfError(400, [{ code: 1007, message: `Invalid value for zone setting ${setting}` }]);
  },
  /** [O] 1004 "DNS Validation Error" with the detail in error_chain (e.g. 9021 for the TTL). */
  dnsValidation(code: number, message: string, pointer?: string): CfError {
    const chained: CfMessage = { code, message };
    const top: CfMessage = { code: 1004, message: 'DNS Validation Error', error_chain: [chained] };
    if (pointer) top.source = { pointer };
    return new CfError(400, [top]);
  },
  /** [O] 81044; HTTP status [U], 404 chosen. */
  recordNotFound(pointer?: string): CfError {
    const e: CfMessage = { code: 81044, message: 'Record does not exist.' };
    if (pointer) e.source = { pointer };
    return new CfError(404, [e]);
  },
  /** [O] 81057 */
  recordExists(pointer?: string): CfError {
    const e: CfMessage = { code: 81057, message: 'Record already exists.' };
    if (pointer) e.source = { pointer };
    return new CfError(400, [e]);
  },
  /** [U] code 81053 is referenced for this clash; the text is Cloudflare's current wording as far as known. */
  hostClash(pointer?: string): CfError {
    const e: CfMessage = { code: 81053, message: 'An A, AAAA, or CNAME record with that host already exists.' };
    if (pointer) e.source = { pointer };
    return new CfError(400, [e]);
  },
  /** [U] */
  nsClash(pointer?: string): CfError {
    const e: CfMessage = { code: 81056, message: 'An NS record cannot share a name with records of other types.' };
    if (pointer) e.source = { pointer };
    return new CfError(400, [e]);
  },
  /** [O] 404 10003 */
  noEntrypoint(phase: string): CfError {
    return new CfError(404, [{ code: 10003, message: `could not find entrypoint ruleset in the ${phase} phase` }]);
  },
  /** [U] number; rulesets errors point at the offending field with source.pointer [C]. */
  /** [C] code 20018 (the real API refuses logging on actions other than skip); text [U]. */
  loggingNotAllowed(action: string, pointer: string): CfError {
    return new CfError(400, [
      { code: 20018, message: `logging is not supported for the ${action} action, only for skip`, source: { pointer } },
    ]);
  },
  rulesetInvalid(message: string, pointer: string): CfError {
    return new CfError(400, [{ code: 20021, message, source: { pointer } }]);
  },
  /** [U] number; text as Cloudflare words it. */
  purgeBody(): CfError {
    return new CfError(400, [
      {
        code: 1012,
        message: 'Request must contain one of "purge_everything", "files", "tags", "hosts" or "prefixes"',
      },
    ]);
  },
  /** [U] an injected 5xx answered as JSON. */
  internal(status: number): CfError {
    return new CfError(status, [{ code: 10001, message: 'Internal server error' }]);
  },
};
