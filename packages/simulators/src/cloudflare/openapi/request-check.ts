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

/** Compiles the validators of the common calls ahead (the first DNS call would otherwise take ~0.5 s). */
export function warmRequestValidator(): void {
  requestValidator();
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
