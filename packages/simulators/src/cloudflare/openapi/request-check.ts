import { readFileSync } from 'node:fs';
import { CfError } from '../envelope.ts';
import { createContractValidator } from './contract.ts';
import { EXTRACT_FILE } from './files.ts';

let validator: ReturnType<typeof createContractValidator> | undefined;

/** Built once per process: each operation's ajv validator is compiled on first use and kept. */
function requestValidator(): ReturnType<typeof createContractValidator> {
  validator ??= createContractValidator(JSON.parse(readFileSync(EXTRACT_FILE, 'utf8')));
  return validator;
}

let warmed = false;

/**
 * Compiles the costliest validators ahead, once per process, when a simulator starts: the settings body is a oneOf
 * over every zone setting (~0.25 s to compile), and a first call paying for it could pass a client's timeout.
 */
export function warmRequestValidator(): void {
  const v = requestValidator();
  if (warmed) return;
  warmed = true;
  const zone = '0'.repeat(32);
  const samples: [string, string, unknown][] = [
    ['PATCH', `/zones/${zone}/settings/ssl`, { value: 'strict' }],
    ['POST', `/zones/${zone}/dns_records`, { type: 'A', name: 'a', content: '192.0.2.1' }],
    ['POST', `/zones/${zone}/dns_records/batch`, { posts: [{ type: 'A', name: 'a', content: '192.0.2.1' }] }],
    ['PUT', `/zones/${zone}/rulesets/phases/http_request_firewall_custom/entrypoint`, { rules: [] }],
    ['POST', `/zones/${zone}/purge_cache`, { purge_everything: true }],
  ];
  for (const [method, path, requestBody] of samples) {
    v.validateRequest({ method, path, query: [], auth: 'token', requestBody }, () => undefined);
  }
}

export interface SimRequest {
  method: string;
  /** Below /client/v4. */
  path: string;
  query: URLSearchParams;
  auth: 'token' | 'key';
  body: unknown;
}

/**
 * Checks a request against Cloudflare's official OpenAPI document (the committed extract): path and query
 * parameters, the authentication scheme and the body, read-only fields included. What does not validate is
 * refused the way Cloudflare refuses a malformed request: HTTP 400, code 9207 ([U]: the exact number for a schema
 * refusal is not on record; DNS refusals come as 1004 with a 9xxx chain, cloudflare.md §2) and the reasons.
 */
export function refusalOf(req: SimRequest, recordType: (id: string) => string | undefined): CfError | undefined {
  const report = requestValidator().validateRequest(
    {
      method: req.method,
      path: req.path,
      query: [...req.query.entries()],
      auth: req.auth,
      requestBody: req.body,
    },
    recordType,
  );
  if (report.problems.length === 0) return undefined;
  // "request /posts/0/ttl: must be <= 86400" → "/posts/0/ttl: must be <= 86400"; parameters keep their name.
  const reasons = report.problems.slice(0, 3).map((p) => p.replace(/^request\s*(?=[/:])/, '').replace(/^: /, ''));
  const chain = reasons.map((message) => ({ code: 9207, message }));
  if (/^dns-records/.test(report.operation)) {
    return new CfError(400, [{ code: 1004, message: 'DNS Validation Error', error_chain: chain }]);
  }
  return new CfError(400, [
    { code: 9207, message: `Request does not match the API schema: ${reasons.join('; ')}`, error_chain: chain },
  ]);
}
