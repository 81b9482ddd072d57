import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SECRET_MASK } from '@fleetdesk/contract';
import { startYandexWebmasterSim } from '@fleetdesk/simulators/yandex-webmaster/index.ts';
import { useAdminCalls } from '../../test/fixtures.ts';
import { useVerifyingSims } from '../../test/verifying-sims.ts';

let seq = 0;

const { t, sims } = useVerifyingSims(
  () => startYandexWebmasterSim({ dailyRecrawlQuota: 2, verifyDelayMs: 0 }),
  ({ engine }) => ({
    YANDEX_WEBMASTER_API_URL: engine.url,
    YANDEX_WEBMASTER_TIMEOUT_SECONDS: '5',
    YANDEX_RECRAWL_DRAIN_MINUTES: '0',
  }),
);
const { call, create } = useAdminCalls(t);
const unique = (p: string) => `${p}${++seq}${Math.random().toString(36).slice(2, 7)}`;
const ACC = '/api/yandex-webmaster/accounts';

/** A Yandex user in the simulator and the console account holding its token. */
async function account(name = 'Main') {
  const token = unique('y0_token-');
  sims.engine.addUser(token);
  const a = await create('yandex-webmaster/accounts', { name, apiToken: token });
  return { a, token, api: `${ACC}/${a._id}/api` };
}
const enc = encodeURIComponent;

describe('yandex webmaster accounts', () => {
  it('creates with a masked token, keeps it unless changed, and validates the name', async () => {
    const res = await call('POST', ACC, { name: '', apiToken: 'x' });
    expect(res.statusCode).toBe(400);
    expect(res.json().fields.name).toBe('Name is required');

    const { a, token } = await account();
    expect(a).toMatchObject({ yandexWebmasterAccountNo: 1, name: 'Main', apiToken: SECRET_MASK, id: a._id });
    expect(JSON.stringify(a)).not.toContain(token);

    // The lock: an edit without the token (or with the mask) keeps it.
    for (const payload of [{ name: 'Renamed' }, { name: 'Renamed', apiToken: SECRET_MASK }, { apiToken: '' }]) {
      const upd = await call('PUT', `${ACC}/${a._id}`, payload);
      expect(upd.statusCode, upd.body).toBe(200);
    }
    const reveal = async () =>
      (await call('POST', `${ACC}/${a._id}/reveal`, { field: 'apiToken' })).json().data.value as string;
    expect(await reveal()).toBe(token);
    await call('PATCH', `${ACC}/${a._id}`, { apiToken: 'new-token' });
    expect(await reveal()).toBe('new-token');
    const list = (await call('GET', `${ACC}?search=renam`)).json().data;
    expect(list).toMatchObject({ itemsCount: 1, items: [{ name: 'Renamed', apiToken: SECRET_MASK }] });
    expect(t.logs.join('\n')).not.toContain(token);
  });

  it('is a real reference of domains: unknown ids are refused and a used account cannot be deleted', async () => {
    const bad = await call('POST', '/api/domains', {
      domainName: 'a.example',
      status: 'active',
      yandexWebmasterAccountId: '00000000-0000-4000-8000-000000000000',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields.yandexWebmasterAccountId).toBe('The Yandex Webmaster account does not exist');
    const { a } = await account();
    await create('domains', { domainName: 'used.example', status: 'active', yandexWebmasterAccountId: a._id });
    const del = await call('DELETE', `${ACC}/${a._id}`);
    expect(del.statusCode).toBe(409);
    expect(del.json().message).toBe(
      'This Yandex Webmaster account cannot be deleted: it is used by 1 domain (used.example)',
    );
  });

  it('marks accounts and brands in use by another domain of the brand', async () => {
    const brand = await create('brands', { name: 'Aurora' });
    const other = await create('brands', { name: 'Borealis' });
    const { a: a1 } = await account('One');
    const { a: a2 } = await account('Two');
    const d1 = await create('domains', {
      domainName: 'd1.example',
      status: 'active',
      brandId: brand._id,
      yandexWebmasterAccountId: a1._id,
    });
    const d2 = await create('domains', { domainName: 'd2.example', status: 'active', brandId: brand._id });
    const marks = async (q: string) =>
      Object.fromEntries(
        (await call('GET', `${ACC}?${q}`))
          .json()
          .data.items.map((x: { name: string; isInUseBrandId?: boolean }) => [x.name, x.isInUseBrandId]),
      );
    expect(await marks(`checkInUseBrandId=${brand._id}&checkInUseBrandIdDomainId=${d2._id}`)).toEqual({
      One: true,
      Two: false,
    });
    // The domain itself does not count.
    expect(await marks(`checkInUseBrandId=${brand._id}&checkInUseBrandIdDomainId=${d1._id}`)).toEqual({
      One: false,
      Two: false,
    });
    expect(await marks('')).toEqual({ One: undefined, Two: undefined });
    const brands = async (q: string) =>
      Object.fromEntries(
        (await call('GET', `/api/brands?${q}`))
          .json()
          .data.items.map((b: { name: string; isInUseYandexWebmasterAccountId?: boolean }) => [
            b.name,
            b.isInUseYandexWebmasterAccountId,
          ]),
      );
    expect(
      await brands(`checkInUseYandexWebmasterAccountId=${a1._id}&checkInUseYandexWebmasterAccountIdDomainId=${d2._id}`),
    ).toEqual({ Aurora: true, Borealis: false });
    expect(
      await brands(`checkInUseYandexWebmasterAccountId=${a1._id}&checkInUseYandexWebmasterAccountIdDomainId=${d1._id}`),
    ).toEqual({ Aurora: false, Borealis: false });
    expect(await brands(`checkInUseYandexWebmasterAccountId=${a2._id}`)).toEqual({ Aurora: false, Borealis: false });
    expect(other).toBeTruthy();
  });
});

describe('proxied webmaster calls', () => {
  it('adds, lists, reads and deletes hosts; unknown hosts are HOST_NOT_FOUND', async () => {
    const { api } = await account();
    const add = await call('POST', `${api}/hosts`, { hostUrl: 'https://shop.example' });
    expect(add.statusCode, add.body).toBe(200);
    const hostId = add.json().data.host_id;
    expect(hostId).toBe('https:shop.example:443');
    expect((await call('POST', `${api}/hosts`, { hostUrl: '' })).statusCode).toBe(400);
    const dup = await call('POST', `${api}/hosts`, { hostUrl: 'https://shop.example' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({
      code: 'yandex.HOST_ALREADY_ADDED',
      message: expect.stringMatching(/^Yandex API Error: HOST_ALREADY_ADDED/),
    });
    const list = (await call('GET', `${api}/hosts`)).json().data;
    expect(list).toMatchObject([{ host_id: hostId, unicode_host_url: 'https://shop.example/', verified: false }]);
    expect((await call('GET', `${api}/hosts/${enc(hostId)}`)).json().data.verified).toBe(false);
    // Per-host data waits for verified rights.
    const summary = await call('GET', `${api}/hosts/${enc(hostId)}/summary`);
    expect(summary.json().code).toBe('yandex.HOST_NOT_VERIFIED');
    expect((await call('DELETE', `${api}/hosts/${enc(hostId)}`)).statusCode).toBe(200);
    const gone = await call('GET', `${api}/hosts/${enc(hostId)}`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toMatchObject({ code: 'yandex.HOST_NOT_FOUND' });
    expect((await call('GET', `${api}/hosts/not-a-host-id`)).statusCode).toBe(400);
  });

  it('a create-host answer without the host id is a clear error', async () => {
    const { api } = await account();
    sims.engine.fail({ kind: 'no_host_id' });
    const res = await call('POST', `${api}/hosts`, { hostUrl: 'https://nohost.example' });
    expect(res.statusCode).toBe(502);
    expect(res.json().message).toBe('Yandex Webmaster added the host but did not return its host id');
  });

  it('serves every tab of a verified host: summary, important urls, sitemaps, user sitemaps, recrawl', async () => {
    const { api, token } = await account();
    const hostId = sims.engine.addHost(token, 'https://tabs.example', { verified: true }).hostId;
    const base = `${api}/hosts/${enc(hostId)}`;
    expect((await call('GET', `${base}/summary`)).json().data).toMatchObject({ sqi: expect.any(Number) });
    expect((await call('GET', `${base}/important-urls`)).json().data[0]).toMatchObject({
      url: 'https://tabs.example/',
    });
    expect((await call('GET', `${base}/sitemaps`)).json().data[0]).toMatchObject({ sitemap_type: 'SITEMAP' });

    const added = await call('POST', `${base}/user-added-sitemaps`, { url: 'https://tabs.example/s.xml' });
    expect(added.statusCode, added.body).toBe(200);
    const sitemapId = added.json().data.sitemap_id;
    expect((await call('POST', `${base}/user-added-sitemaps`, { url: 'nope' })).statusCode).toBe(400);
    expect((await call('GET', `${base}/user-added-sitemaps`)).json().data).toMatchObject({ count: 1 });
    expect((await call('DELETE', `${base}/user-added-sitemaps/${sitemapId}`)).statusCode).toBe(200);
    const again = await call('DELETE', `${base}/user-added-sitemaps/${sitemapId}`);
    expect(again.json().code).toBe('yandex.SITEMAP_NOT_ADDED');

    // Quota 2 a day: two go now, the third waits in the backlog.
    expect((await call('GET', `${base}/recrawl/quota`)).json().data).toEqual({ daily_quota: 2, quota_remainder: 2 });
    const r1 = (await call('POST', `${base}/recrawl/queue`, { url: 'https://tabs.example/a' })).json().data;
    expect(r1).toMatchObject({ backlogged: false, quota_remainder: 1 });
    await call('POST', `${base}/recrawl/queue`, { url: 'https://tabs.example/b' });
    const r3 = (await call('POST', `${base}/recrawl/queue`, { url: 'https://tabs.example/c' })).json().data;
    expect(r3).toEqual({ task_id: null, quota_remainder: 0, backlogged: true });
    const queue = (await call('GET', `${base}/recrawl/queue`)).json().data;
    expect(queue.tasks.map((x: { url: string }) => x.url).sort()).toEqual([
      'https://tabs.example/a',
      'https://tabs.example/b',
    ]);
    expect(queue.backlog).toMatchObject([{ url: 'https://tabs.example/c' }]);
    // Nothing goes while the day's quota is spent; the next day the backlog drains.
    expect(await t.c.services.yandexWebmaster.drainRecrawlBacklog()).toBe(0);
    const h2 = sims.engine.users.get(token)!.hosts.get(hostId)!;
    h2.recrawlUsed = {};
    expect(await t.c.services.yandexWebmaster.drainRecrawlBacklog()).toBe(1);
    const after = (await call('GET', `${base}/recrawl/queue`)).json().data;
    expect(after.backlog).toEqual([]);
    expect(after.tasks).toHaveLength(3);
  });

  it('verification: the type must be applicable; the spec texts of errors', async () => {
    const { api, token } = await account();
    const hostId = sims.engine.addHost(token, 'https://verify.example').hostId;
    const base = `${api}/hosts/${enc(hostId)}`;
    const v = (await call('GET', `${base}/verification`)).json().data;
    expect(v).toMatchObject({ verification_state: 'NONE', applicable_verifiers: ['META_TAG', 'HTML_FILE', 'DNS'] });
    expect((await call('POST', `${base}/verification`, { verificationType: 'WHOIS' })).statusCode).toBe(400);
    const started = await call('POST', `${base}/verification`, { verificationType: 'META_TAG' });
    expect(started.statusCode, started.body).toBe(200);
    expect(started.json().data.verification_state).toBe('IN_PROGRESS');
    const failed = (await call('GET', `${base}/verification`)).json().data;
    expect(failed).toMatchObject({
      verification_state: 'VERIFICATION_FAILED',
      fail_info: { reason: 'META_TAG_NOT_FOUND' },
    });
  });
});

describe('one-click verification', () => {
  it('through DNS: adds the host, places the TXT record in the Cloudflare zone and verifies', async () => {
    const { a, token } = await account();
    const cfToken = unique('cf-token-');
    sims.cf.addAccount({ email: `${unique('o')}@example.com`, token: cfToken });
    const cloud = await create('clouds', { email: `${unique('c')}@example.com`, token: cfToken });
    const d = await create('domains', {
      domainName: 'dns-verify.example',
      status: 'active',
      cloudId: cloud._id,
      yandexWebmasterAccountId: a._id,
    });
    const zone = await call('POST', `/api/domains/${d._id}/cloud-flare/create-zone`);
    expect(zone.statusCode, zone.body).toBe(200);

    const before = (await call('GET', `/api/domains/${d._id}/yandex-webmaster/host`)).json().data;
    expect(before).toEqual({ hostUrl: 'https://dns-verify.example', host: null });

    const res = await call('POST', `/api/domains/${d._id}/yandex-webmaster/verify-dns`);
    expect(res.statusCode, res.body).toBe(200);
    const out = res.json().data;
    expect(out.method).toBe('DNS');
    const uin = out.verification.verification_uin;
    const records = (await call('GET', `/api/domains/${d._id}/cloud-flare/dns_records`)).json();
    expect(JSON.stringify(records)).toContain(`yandex-verification: ${uin}`);
    const host = (await call('GET', `/api/domains/${d._id}/yandex-webmaster/host`)).json().data.host;
    expect(host).toMatchObject({ host_id: 'https:dns-verify.example:443', verified: true });
    expect(sims.engine.users.get(token)!.hosts.get('https:dns-verify.example:443')!.verification.state).toBe(
      'VERIFIED',
    );
  });

  it('through a file: writes yandex_<uin>.html in the content directory over SFTP and verifies', async () => {
    const { a } = await account();
    const server = await create('servers', { IPAddress: '127.0.0.1', sshPort: sims.sshHost.port, domainsPath: '/www' });
    const key = await call('POST', `/api/servers/${server._id}/rsa-key`, { rsaKey: sims.sshKey.privateKey });
    expect(key.statusCode, key.body).toBe(200);
    const name = 'file-verify.example';
    fs.mkdirSync(path.join(sims.sshHost.rootDir, 'www', name));
    const d = await create('domains', {
      domainName: name,
      status: 'active',
      serverId: server._id,
      yandexWebmasterAccountId: a._id,
    });
    const res = await call('POST', `/api/domains/${d._id}/yandex-webmaster/verify-file`);
    expect(res.statusCode, res.body).toBe(200);
    const out = res.json().data;
    const uin = out.verification.verification_uin;
    expect(out).toMatchObject({ method: 'HTML_FILE', placed: `yandex_${uin}.html` });
    const written = fs.readFileSync(path.join(sims.sshHost.rootDir, 'www', name, `yandex_${uin}.html`), 'utf8');
    expect(written).toContain(`Verification: ${uin}`);
    const host = (await call('GET', `/api/domains/${d._id}/yandex-webmaster/host`)).json().data.host;
    expect(host).toMatchObject({ host_id: `https:${name}:443`, verified: true });
  });

  it('refuses clearly without an account or a zone', async () => {
    const d = await create('domains', { domainName: 'bare.example', status: 'active' });
    const res = await call('POST', `/api/domains/${d._id}/yandex-webmaster/verify-dns`);
    expect(res.statusCode).toBe(400);
    const { a } = await account();
    await call('PATCH', `/api/domains/${d._id}`, { yandexWebmasterAccountId: a._id });
    const noZone = await call('POST', `/api/domains/${d._id}/yandex-webmaster/verify-dns`);
    expect(noZone.statusCode).toBe(400);
    expect(noZone.json().message).toBe('The domain has no Cloudflare zone: create or link one first');
  });
});
