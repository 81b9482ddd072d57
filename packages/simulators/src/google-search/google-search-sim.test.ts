import { createPrivateKey, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOOGLE_SIM_SCOPES, parseSiteUrl, startGoogleSearchSim, type GoogleSearchSim } from './index.ts';

let sim: GoogleSearchSim;
beforeAll(async () => {
  sim = await startGoogleSearchSim();
});
afterAll(async () => sim?.close());

const b64 = (v: object | Buffer) => Buffer.from(v instanceof Buffer ? v : JSON.stringify(v)).toString('base64url');

/** An assertion signed with the key, with claims as given (defaults: a valid one). */
function assertion(key: { private_key: string; private_key_id: string; client_email: string }, over: object = {}) {
  const iat = Math.floor(Date.now() / 1000);
  const header = b64({ alg: 'RS256', typ: 'JWT', kid: key.private_key_id });
  const claims = b64({
    iss: key.client_email,
    scope: `${GOOGLE_SIM_SCOPES.webmasters} ${GOOGLE_SIM_SCOPES.siteverification}`,
    aud: sim.tokenUrl,
    iat,
    exp: iat + 3600,
    ...over,
  });
  const sig = sign('sha256', Buffer.from(`${header}.${claims}`), createPrivateKey(key.private_key));
  return `${header}.${claims}.${b64(sig)}`;
}
const token = (body: Record<string, string>, type = 'application/x-www-form-urlencoded') =>
  fetch(sim.tokenUrl, { method: 'POST', headers: { 'content-type': type }, body: new URLSearchParams(body) });
const grant = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

describe('google search simulator: the token endpoint (RFC 7523)', () => {
  it('gives a bearer token for a valid assertion', async () => {
    const key = sim.createServiceAccount('ok');
    const res = await token({ grant_type: grant, assertion: assertion(key) });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      access_token: expect.any(String),
      expires_in: 3599,
      token_type: 'Bearer',
    });
  });

  it('refuses what Google refuses, with error and error_description', async () => {
    const key = sim.createServiceAccount('refused');
    const refused = async (body: Record<string, string>) => {
      const res = await token(body);
      expect(res.status).toBe(400);
      return (await res.json()) as { error: string; error_description: string };
    };
    expect((await refused({ grant_type: 'password', assertion: assertion(key) })).error).toBe('unsupported_grant_type');
    expect((await refused({ grant_type: grant, assertion: 'x.y' })).error).toBe('invalid_request');
    const t = Math.floor(Date.now() / 1000);
    expect(
      await refused({ grant_type: grant, assertion: assertion(key, { iat: t - 7200, exp: t - 3600 }) }),
    ).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringContaining('Check your iat and exp values'),
    });
    expect((await refused({ grant_type: grant, assertion: assertion(key, { exp: t + 7200 }) })).error).toBe(
      'invalid_grant',
    );
    expect(
      (await refused({ grant_type: grant, assertion: assertion(key, { aud: 'https://elsewhere/token' }) })).error,
    ).toBe('invalid_grant');
    expect((await refused({ grant_type: grant, assertion: assertion(key, { scope: '' }) })).error).toBe(
      'invalid_scope',
    );
    const other = sim.createServiceAccount('other');
    expect(
      (await refused({ grant_type: grant, assertion: assertion({ ...key, private_key: other.private_key }) })).error,
    ).toBe('invalid_grant');
    const narrow = sim.createServiceAccount('narrow', { scopes: [GOOGLE_SIM_SCOPES.webmastersReadonly] });
    expect((await refused({ grant_type: grant, assertion: assertion(narrow) })).error).toBe('unauthorized_client');
    const form = await token({ grant_type: grant, assertion: assertion(key) }, 'application/json');
    expect(form.status).toBe(400);
  });

  it('answers the APIs only with a token of the right scope, in Google’s error envelope', async () => {
    const key = sim.createServiceAccount('scopes');
    const none = await fetch(`${sim.url}/webmasters/v3/sites`);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
    const body = await (
      await token({ grant_type: grant, assertion: assertion(key, { scope: GOOGLE_SIM_SCOPES.siteverification }) })
    ).json();
    const res = await fetch(`${sim.url}/webmasters/v3/sites`, {
      headers: { authorization: `Bearer ${(body as { access_token: string }).access_token}` },
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      error: {
        code: 403,
        message: 'Request had insufficient authentication scopes.',
        status: 'PERMISSION_DENIED',
        errors: [
          {
            message: 'Request had insufficient authentication scopes.',
            domain: 'global',
            reason: 'insufficientPermissions',
          },
        ],
      },
    });
  });
});

describe('google search simulator: request bodies', () => {
  it('refuses fields the discovery document does not name, and bad enum values', async () => {
    const key = sim.createServiceAccount('bodies');
    sim.addOwner('bodies.example', key.client_email);
    sim.addProperty('sc-domain:bodies.example', key.client_email);
    const { access_token } = (await (await token({ grant_type: grant, assertion: assertion(key) })).json()) as {
      access_token: string;
    };
    const post = (path: string, body: object) =>
      fetch(`${sim.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const query = '/webmasters/v3/sites/sc-domain%3Abodies.example/searchAnalytics/query';
    const range = { startDate: '2026-01-01', endDate: '2026-01-28' };
    expect((await post(query, { ...range, dimensions: ['date'], dataState: 'all' })).status).toBe(200);
    const unknown = await post(query, { ...range, dimension: ['date'] });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({
      error: {
        status: 'INVALID_ARGUMENT',
        message: 'Invalid JSON payload received. Unknown name "dimension": Cannot find field.',
      },
    });
    expect((await post(query, { ...range, aggregationType: 'bySite' })).status).toBe(400);
    expect((await post(query, { ...range, rowLimit: 25_001 })).status).toBe(400);
    expect((await post(query, { startDate: '2026-02-01', endDate: '2026-01-01' })).status).toBe(400);
    const inspect = await post('/v1/urlInspection/index:inspect', {
      inspectionUrl: 'https://bodies.example/',
      siteUrl: 'sc-domain:bodies.example',
      language: 'en',
    });
    expect(inspect.status).toBe(400);
    const verify = await post('/siteVerification/v1/webResource', {
      site: { type: 'INET_DOMAIN', identifier: 'bodies.example' },
    });
    expect(verify.status).toBe(400);
    expect(((await verify.json()) as { error: { message: string } }).error.message).toBe(
      'Required parameter: verificationMethod',
    );
  });
});

describe('google search simulator: site URLs', () => {
  it('reads domain and URL-prefix properties and refuses anything else', () => {
    expect(parseSiteUrl('sc-domain:example.com')).toEqual({ kind: 'domain', host: 'example.com' });
    expect(parseSiteUrl('https://example.com/')).toEqual({
      kind: 'url',
      host: 'example.com',
      prefix: 'https://example.com/',
    });
    for (const bad of ['example.com', 'https://example.com', 'sc-domain:', 'ftp://example.com/', 'https://x/?q=1'])
      expect(parseSiteUrl(bad)).toBeUndefined();
  });
});
