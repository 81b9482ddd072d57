import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../http/errors.ts';
import { startYandexWebmasterSim, type YandexWebmasterSim } from '@fleetdesk/simulators/yandex-webmaster/index.ts';
import { createYandexWebmasterClient, YandexApiError, type WebmasterCredentials } from './index.ts';

let sim: YandexWebmasterSim;
let seq = 0;
beforeAll(async () => {
  sim = await startYandexWebmasterSim({ dailyRecrawlQuota: 1, verifyDelayMs: 0 });
});
afterAll(async () => sim?.close());

const noSleep = async () => undefined;
const client = (o: { timeoutMs?: number } = {}) =>
  createYandexWebmasterClient({ baseUrl: sim.url, sleep: noSleep, timeoutMs: o.timeoutMs ?? 5000 });
const user = (): WebmasterCredentials => {
  const token = `tok-${++seq}-${Math.random().toString(36).slice(2)}`;
  sim.addUser(token);
  return { token };
};
const yandexError = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(YandexApiError);
  return err as YandexApiError;
};

describe('yandex webmaster client against the simulator', () => {
  it('finds the user id once, caches it, tells the caller, and sends OAuth with url-encoded host ids', async () => {
    const c = client();
    const creds = user();
    const seen: string[] = [];
    const before = sim.requests.length;
    const { host_id } = await c.addHost({ ...creds, onUserId: (id) => void seen.push(id) }, 'https://One.example');
    expect(host_id).toBe('https:one.example:443');
    await c.listHosts(creds);
    const paths = sim.requests.slice(before).map((r) => r.path);
    expect(paths.filter((p) => p === '/v4/user')).toHaveLength(1);
    expect(seen).toHaveLength(1);
    expect(paths).toContain(`/v4/user/${seen[0]}/hosts`);
    const got = await c.getHost(creds, host_id);
    expect(got).toMatchObject({ host_id, verified: false });
    expect(sim.requests.at(-1)!.path).toBe(`/v4/user/${seen[0]}/hosts/https%3Aone.example%3A443`);
  });

  it('replaces a stale user id (INVALID_USER_ID) once', async () => {
    const creds = user();
    const hosts = await client().listHosts({ ...creds, userId: '1' });
    expect(hosts).toEqual([]);
  });

  it('covers every call of a verified host', async () => {
    const c = client();
    const creds = user();
    const hostId = sim.addHost(creds.token, 'https://all.example', { verified: true }).hostId;
    expect((await c.summary(creds, hostId)).sqi).toEqual(expect.any(Number));
    expect(await c.importantUrls(creds, hostId)).toHaveLength(1);
    expect(await c.sitemaps(creds, hostId)).toHaveLength(1);
    const { sitemap_id } = await c.addUserSitemap(creds, hostId, 'https://all.example/s.xml');
    expect((await c.userSitemaps(creds, hostId)).count).toBe(1);
    expect((await yandexError(c.addUserSitemap(creds, hostId, 'https://all.example/s.xml'))).errorCode).toBe(
      'SITEMAP_ALREADY_ADDED',
    );
    await c.deleteUserSitemap(creds, hostId, sitemap_id);
    expect((await yandexError(c.deleteUserSitemap(creds, hostId, sitemap_id))).errorCode).toBe('SITEMAP_NOT_ADDED');
    expect((await yandexError(c.addUserSitemap(creds, hostId, 'https://elsewhere.example/s.xml'))).errorCode).toBe(
      'INVALID_URL',
    );
    expect(await c.recrawlQuota(creds, hostId)).toEqual({ daily_quota: 1, quota_remainder: 1 });
    const task = await c.recrawl(creds, hostId, 'https://all.example/a');
    expect(task).toMatchObject({ quota_remainder: 0, task_id: expect.any(String) });
    expect(await c.recrawlQueue(creds, hostId)).toMatchObject([{ url: 'https://all.example/a', state: 'IN_PROGRESS' }]);
    const quota = await yandexError(c.recrawl(creds, hostId, 'https://all.example/b'));
    expect(quota).toMatchObject({ errorCode: 'QUOTA_EXCEEDED', httpStatus: 429, status: 429 });
    await c.deleteHost(creds, hostId);
    expect((await yandexError(c.getHost(creds, hostId))).errorCode).toBe('HOST_NOT_FOUND');
  });

  it('verification: states, types and the error codes', async () => {
    const c = client();
    const creds = user();
    const { host_id } = await c.addHost(creds, 'https://verify.example');
    const dup = await yandexError(c.addHost(creds, 'https://verify.example'));
    expect(dup).toMatchObject({ errorCode: 'HOST_ALREADY_ADDED', status: 409 });
    expect(dup.message).toBe('Yandex API Error: HOST_ALREADY_ADDED: Host already added');
    expect((await yandexError(c.summary(creds, host_id))).errorCode).toBe('HOST_NOT_VERIFIED');
    const v = await c.verification(creds, host_id);
    expect(v).toMatchObject({ verification_state: 'NONE', applicable_verifiers: ['META_TAG', 'HTML_FILE', 'DNS'] });
    const started = await c.verify(creds, host_id, 'DNS');
    expect(started).toMatchObject({ verification_state: 'IN_PROGRESS', verification_type: 'DNS' });
    const failed = await c.verification(creds, host_id);
    expect(failed).toMatchObject({
      verification_state: 'VERIFICATION_FAILED',
      fail_info: { reason: 'DNS_RECORD_NOT_FOUND' },
    });
  });

  it('a bad token, a hosts limit, and unknown paths are Yandex errors', async () => {
    const c = client();
    const bad = await yandexError(c.listHosts({ token: 'nope' }));
    expect(bad).toMatchObject({ errorCode: 'INVALID_OAUTH_TOKEN', status: 502 });
    const token = `lim-${++seq}`;
    sim.addUser(token, { hostsLimit: 0 });
    expect((await yandexError(c.addHost({ token }, 'https://x.example'))).errorCode).toBe('HOSTS_LIMIT_EXCEEDED');
  });

  it('retries idempotent calls on 5xx and 429, not POSTs; HTML and missing host ids are clear errors', async () => {
    const c = client();
    const creds = user();
    await c.listHosts(creds);
    sim.fail({ kind: '5xx', count: 2 });
    expect(await c.listHosts(creds)).toEqual([]);
    sim.fail({ kind: '429' });
    expect(await c.listHosts(creds)).toEqual([]);
    sim.fail({ kind: '5xx', count: 3 });
    await expect(c.listHosts(creds)).rejects.toBeInstanceOf(YandexApiError);
    sim.fail({ kind: '5xx' });
    const post = await yandexError(c.addHost(creds, 'https://retry.example'));
    expect(post.httpStatus).toBe(503);
    sim.fail({ kind: 'html', count: 3 });
    await expect(c.listHosts(creds)).rejects.toThrow('Yandex Webmaster answered 502 with something other than JSON');
    sim.fail({ kind: 'no_host_id' });
    await expect(c.addHost(creds, 'https://noid.example')).rejects.toThrow(
      'Yandex Webmaster added the host but did not return its host id',
    );
  });

  it('times out', async () => {
    const c = client({ timeoutMs: 200 });
    const creds = user();
    await c.listHosts(creds);
    sim.fail({ kind: 'slow', delayMs: 1000 });
    const err = await c.listHosts(creds).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as UpstreamError).status).toBe(504);
    await new Promise((r) => setTimeout(r, 1000));
  });
});
