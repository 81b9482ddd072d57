import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOOGLE_SCOPES, type GoogleServiceAccountKey } from '@fleetdesk/contract';
import { startGoogleSearchSim, type GoogleSearchSim } from '@fleetdesk/simulators/google-search/index.ts';
import { UpstreamError } from '../../http/errors.ts';
import { createGoogleSearchClient, GoogleApiError, GoogleTokenError, readPrivateKey, signAssertion } from './index.ts';

let sim: GoogleSearchSim;
let seq = 0;
/** Moves the simulator's clock and the clients' together (tokens expire on both sides). */
let skew = 0;
const now = () => Date.now() + skew;
beforeAll(async () => {
  sim = await startGoogleSearchSim({ now });
});
afterAll(async () => sim?.close());

const noSleep = async () => undefined;
const client = (o: { timeoutMs?: number; tokenUrl?: string } = {}) =>
  createGoogleSearchClient({
    searchConsoleUrl: sim.url,
    siteVerificationUrl: sim.siteVerificationUrl,
    sleep: noSleep,
    timeoutMs: o.timeoutMs ?? 5000,
    now,
    tokenUrl: o.tokenUrl,
  });
const serviceAccount = (): GoogleServiceAccountKey => sim.createServiceAccount(`client-${++seq}`);
const failure = async <E>(p: Promise<unknown>, type: new (...a: never[]) => E) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(type);
  return err as E;
};
const tokenCalls = (since: number) => sim.requests.slice(since).filter((r) => r.path === '/token').length;

describe('google search client against the simulator', () => {
  it('signs an RS256 assertion with kid, iss, scope, aud and an hour of life', () => {
    const key = serviceAccount();
    const jwt = signAssertion(key, readPrivateKey(key.private_key), 'https://oauth2.example/token', 1_700_000_000_000);
    const [h, c] = jwt
      .split('.')
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()) as object);
    expect(h).toEqual({ alg: 'RS256', typ: 'JWT', kid: key.private_key_id });
    expect(c).toEqual({
      iss: key.client_email,
      scope: GOOGLE_SCOPES.join(' '),
      aud: 'https://oauth2.example/token',
      iat: 1_700_000_000,
      exp: 1_700_003_600,
    });
  });

  it('asks for one token per key and keeps it until about a minute before it expires', async () => {
    const c = client();
    const key = serviceAccount();
    const before = sim.requests.length;
    await c.listSites(key);
    await c.listSites(key);
    expect(tokenCalls(before)).toBe(1);
    skew += 3599_000 - 61_000;
    await c.listSites(key);
    expect(tokenCalls(before)).toBe(1);
    skew += 2_000;
    await c.listSites(key);
    expect(tokenCalls(before)).toBe(2);
    // Another key has a token of its own.
    await c.listSites(serviceAccount());
    expect(tokenCalls(before)).toBe(3);
  });

  it('renews a token Google no longer takes once, and the call goes through', async () => {
    const c = client();
    const key = serviceAccount();
    await c.listSites(key);
    sim.revokeTokens();
    const before = sim.requests.length;
    await c.listSites(key);
    expect(tokenCalls(before)).toBe(1);
  });

  it('turns the token endpoint’s refusal into GoogleTokenError with error and description', async () => {
    const c = client();
    const key = serviceAccount();
    const stranger = serviceAccount();
    const err = await failure(c.checkKey({ ...key, private_key: stranger.private_key }), GoogleTokenError);
    expect(err.message).toBe('Google refused the service account key: invalid_grant: Invalid JWT Signature.');
    // A token URL from config replaces the key's; the aud goes with it.
    const elsewhere = client({ tokenUrl: sim.tokenUrl });
    await elsewhere.checkKey({ ...key, token_uri: 'https://oauth2.googleapis.com/token' });
  });

  it('names Google on a timeout, an HTML page and a 5xx, and retries only calls that are safe to repeat', async () => {
    const key = serviceAccount();
    const c = client({ timeoutMs: 300 });
    await c.listSites(key);
    sim.fail({ kind: 'slow', delayMs: 2000 });
    const slow = await failure(c.listSites(key), UpstreamError);
    expect(slow.status).toBe(504);
    expect(slow.message).toBe('Google Search Console did not answer within 300 ms');
    sim.fail({ kind: 'html' });
    const html = await failure(c.listSites(key), UpstreamError);
    expect(html.message).toBe('Google Search Console answered 502 with something other than JSON');
    sim.fail({ kind: '5xx', count: 2 });
    expect(await c.listSites(key)).toEqual([]);
    sim.fail({ kind: '5xx' });
    const post = await failure(
      c.searchAnalytics(key, 'sc-domain:x.example', { startDate: '2026-01-01', endDate: '2026-01-02', dimensions: [] }),
      GoogleApiError,
    );
    expect(post).toMatchObject({ status: 502, httpStatus: 503, googleStatus: 'UNAVAILABLE' });
    const unreachable = createGoogleSearchClient({
      searchConsoleUrl: 'http://127.0.0.1:1',
      siteVerificationUrl: 'http://127.0.0.1:1',
      sleep: noSleep,
    });
    const down = await failure(unreachable.checkKey({ ...key, token_uri: 'http://127.0.0.1:1/token' }), UpstreamError);
    expect(down.message).toBe("Google's token endpoint could not be reached");
  });

  it('reads Google’s error envelope: status, message and HTTP code', async () => {
    const c = client();
    const key = serviceAccount();
    const bad = await failure(c.addSite(key, 'example.com'), GoogleApiError);
    expect(bad).toMatchObject({ status: 400, httpStatus: 400, googleStatus: 'INVALID_ARGUMENT' });
    const denied = await failure(c.listSitemaps(key, 'sc-domain:nobody.example'), GoogleApiError);
    expect(denied).toMatchObject({ status: 502, httpStatus: 403, googleStatus: 'PERMISSION_DENIED' });
    // A site added without verification: listed as unverified.
    await c.addSite(key, 'https://added.example/');
    expect(await c.listSites(key)).toEqual([
      { siteUrl: 'https://added.example/', permissionLevel: 'siteUnverifiedUser' },
    ]);
  });
});
