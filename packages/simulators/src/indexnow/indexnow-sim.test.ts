import { afterEach, describe, expect, it } from 'vitest';
import { startSiteServer, type SiteServer } from '../site/index.ts';
import { startIndexNowSim, type IndexNowSim } from './server.ts';

let sim: IndexNowSim;
let site: SiteServer | undefined;
afterEach(async () => {
  await sim?.close();
  await site?.close();
  site = undefined;
});

const KEY = 'a1b2c3d4e5f6-key';
const post = (body: unknown, type = 'application/json; charset=utf-8') =>
  fetch(sim.url, { method: 'POST', headers: { 'content-type': type }, body: JSON.stringify(body) });
const urls = (n: number, host = 'example.com') => Array.from({ length: n }, (_, i) => `https://${host}/p/${i}.html`);

describe('IndexNow simulator', () => {
  it('answers 200 when the key file on the site holds the key, and logs the submission', async () => {
    sim = await startIndexNowSim({
      fileLookup: (host, file) => (host === 'example.com' && file === `${KEY}.txt` ? `${KEY}\n` : undefined),
    });
    const res = await post({ host: 'example.com', key: KEY, urlList: urls(3) });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    expect(sim.submissions).toMatchObject([
      { method: 'POST', host: 'example.com', key: KEY, urls: urls(3), status: 200 },
    ]);
    // One URL by GET.
    const one = await fetch(`${sim.url}?url=${encodeURIComponent('https://example.com/a')}&key=${KEY}`);
    expect(one.status).toBe(200);
    expect(sim.submissions[1]).toMatchObject({ method: 'GET', host: 'example.com', urls: ['https://example.com/a'] });
  });

  it('answers 403 when the key file is missing or holds another key, at the default place or keyLocation', async () => {
    sim = await startIndexNowSim({
      fileLookup: (_h, file) => (file === 'keys/other.txt' ? 'another-key-1' : undefined),
    });
    expect((await post({ host: 'example.com', key: KEY, urlList: urls(1) })).status).toBe(403);
    const moved = await post({
      host: 'example.com',
      key: KEY,
      keyLocation: 'https://example.com/keys/other.txt',
      urlList: urls(1),
    });
    expect(moved.status).toBe(403);
    expect(await moved.text()).toMatch(/^Key not valid/);
  });

  it('reads the key file from a loopback site playing the host (resolveHost), 202 for a host it cannot reach', async () => {
    site = await startSiteServer({
      routes: {
        [`/${KEY}.txt`]: (req) => (req.headers.host === 'example.com' ? { body: KEY } : { status: 404 }),
      },
    });
    sim = await startIndexNowSim({ resolveHost: (h) => (h === 'example.com' ? site!.url : undefined) });
    expect((await post({ host: 'example.com', key: KEY, urlList: urls(2) })).status).toBe(200);
    expect((await post({ host: 'example.com', key: 'wrong-key-123', urlList: urls(2) })).status).toBe(403);
    // Not reachable now: received, the key checked later.
    expect((await post({ host: 'other.org', key: KEY, urlList: urls(2, 'other.org') })).status).toBe(202);
  });

  it('answers 202 when it has no way to look at the site', async () => {
    sim = await startIndexNowSim();
    expect((await post({ host: 'example.com', key: KEY, urlList: urls(1) })).status).toBe(202);
  });

  it('refuses what the protocol refuses: key shape and foreign URLs 422, bad bodies 400, other methods 405', async () => {
    sim = await startIndexNowSim();
    const status = async (body: unknown, type?: string) => (await post(body, type)).status;
    expect(await status({ host: 'example.com', key: 'short', urlList: urls(1) })).toBe(422);
    expect(await status({ host: 'example.com', key: 'has_underscore_key', urlList: urls(1) })).toBe(422);
    expect(await status({ host: 'example.com', key: 'k'.repeat(129), urlList: urls(1) })).toBe(422);
    expect(await status({ host: 'example.com', key: KEY, urlList: ['https://elsewhere.com/'] })).toBe(422);
    expect(
      await status({ host: 'example.com', key: KEY, keyLocation: 'https://elsewhere.com/k.txt', urlList: urls(1) }),
    ).toBe(422);
    expect(await status({ host: 'example.com', key: KEY, urlList: [] })).toBe(400);
    expect(await status({ host: 'example.com', key: KEY, urlList: ['not a url'] })).toBe(400);
    expect(await status({ host: 'example.com', key: KEY })).toBe(400);
    expect(await status({ host: 'example.com', key: KEY, urlList: urls(1) }, 'text/plain')).toBe(400);
    expect(await status({ host: 'example.com', key: KEY, urlList: urls(10_001) })).toBe(400);
    expect(
      (await fetch(sim.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' })).status,
    ).toBe(400);
    expect((await fetch(`${sim.url}?key=${KEY}`)).status).toBe(400);
    const put = await fetch(sim.url, { method: 'PUT', body: '{}' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST');
    expect(sim.submissions.map((s) => s.status)).toEqual([
      422, 422, 422, 422, 422, 400, 400, 400, 400, 400, 400, 400, 405,
    ]);
  });

  it('accepts 10,000 URLs in one POST and answers 413 past its body limit', async () => {
    sim = await startIndexNowSim({ maxBodyBytes: 1024 * 1024 });
    expect((await post({ host: 'example.com', key: KEY, urlList: urls(10_000) })).status).toBe(202);
    const long = Array.from({ length: 5000 }, (_, i) => `https://example.com/${'x'.repeat(300)}/${i}`);
    expect((await post({ host: 'example.com', key: KEY, urlList: long })).status).toBe(413);
  });

  it('fails on request: 5xx, 429 with Retry-After, an HTML page, a slow answer', async () => {
    sim = await startIndexNowSim();
    const body = { host: 'example.com', key: KEY, urlList: urls(1) };
    sim.fail({ kind: '5xx' });
    expect((await post(body)).status).toBe(503);
    sim.fail({ kind: '429' });
    const limited = await post(body);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('60');
    sim.fail({ kind: 'html' });
    const html = await post(body);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toMatch(/text\/html/);
    sim.fail({ kind: 'slow', delayMs: 300 });
    const t0 = Date.now();
    expect((await post(body)).status).toBe(202);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    // The failures are used up.
    expect((await post(body)).status).toBe(202);
  });
});
