import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness.ts';
import { createCloudflareClient } from './cloudflare/index.ts';
import { createDirectAdminClient } from './directadmin/index.ts';
import { createIspManagerClient } from './ispmanager/index.ts';
import { createNamecheapClient } from './namecheap/index.ts';
import { createYandexWebmasterClient } from './yandex-webmaster/index.ts';

/**
 * Credentials that travel in a header or a URL (issue 26): a Yandex token of `токен-1`, or one with a newline or
 * U+2028, was saved and then every call answered 502 "could not be reached". The forms refuse such values with a
 * field error, and the clients refuse one saved earlier with a message that names it, before any connection.
 */
const BAD_TOKENS = ['токен-1', 'abc\ndef', 'abc\u2028def', 'abc def'];
// Nothing listens here: a client that tried to connect would answer "could not be reached" instead.
const CLOSED = 'http://127.0.0.1:9';

let t: TestApp;
let h: { authorization: string };
beforeAll(async () => {
  t = await createTestApp();
  h = { authorization: await t.tokenFor(['cnv']) };
});
afterAll(async () => t?.close());

const post = (url: string, payload: object) => t.inject({ method: 'POST', url, headers: h, payload });

describe('saving credentials', () => {
  it.each(BAD_TOKENS)('refuses the Yandex token %j with a field error', async (token) => {
    const res = await post('/api/yandex-webmaster/accounts', { name: `Y ${token.length}`, apiToken: token });
    expect(res.statusCode).toBe(400);
    expect(res.json().fields.apiToken).toMatch(/^Must be letters, digits and symbols only \(printable ASCII/);
  });

  it('refuses Cloudflare tokens and keys, Namecheap users and keys, and panel credentials that cannot be sent', async () => {
    const cloud = await post('/api/clouds', { email: 'c@example.test', token: 'tok\n', globalAPIKey: 'ключ' });
    expect(cloud.statusCode).toBe(400);
    expect(Object.keys(cloud.json().fields).sort()).toEqual(['globalAPIKey', 'token']);

    const reg = await post('/api/domain-registrators', {
      name: 'NC',
      type: 'namecheap',
      credentials: { endpointUrl: 'https://api.namecheap.com/xml.response', apiUsername: 'acme:x', apiKey: 'k e y' },
    });
    expect(reg.statusCode).toBe(400);
    expect(Object.keys(reg.json().fields).sort()).toEqual(['credentials.apiKey', 'credentials.apiUsername']);

    const server = await post('/api/servers', {
      IPAddress: '192.0.2.10',
      directAdminUsername: 'ad min',
      directAdminPassword: 'pass\u2028word',
      ispmanagerUsername: 'root',
      ispmanagerPassword: 'line\nbreak',
    });
    expect(server.statusCode).toBe(400);
    expect(Object.keys(server.json().fields).sort()).toEqual([
      'directAdminPassword',
      'directAdminUsername',
      'ispmanagerPassword',
    ]);
    expect(server.json().fields.ispmanagerPassword).toBe('Must not contain line breaks or other control characters');

    // Non-Latin letters are fine in a password; printable ASCII in a token.
    const ok = await post('/api/servers', {
      IPAddress: '192.0.2.11',
      directAdminPassword: 'пароль-Ü',
      directAdminUsername: 'admin',
    });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(
      (await post('/api/yandex-webmaster/accounts', { name: 'Y ok', apiToken: 'y0_AgAAAA-_.~+/=' })).statusCode,
    ).toBe(201);
  });
});

const failure = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(Error);
  return e as Error & { code?: string };
};

describe('clients refuse a saved value that cannot be sent, naming it, without a connection', () => {
  it.each(BAD_TOKENS)('Yandex Webmaster, token %j', async (token) => {
    const y = createYandexWebmasterClient({ baseUrl: CLOSED, timeoutMs: 500 });
    const e = await failure(y.listHosts({ token }));
    expect(e.message).toMatch(/^Yandex Webmaster: the API token cannot be sent \(it must be letters, digits/);
    expect(e.code).toBe('upstream_credential_invalid');
  });

  it('Cloudflare, Namecheap, DirectAdmin and ISPmanager', async () => {
    const cf = createCloudflareClient({ baseUrl: CLOSED, timeoutMs: 500 });
    expect((await failure(cf.listZones({ token: 'tok\u2028en' }))).message).toMatch(
      /^Cloudflare: the API token cannot be sent/,
    );
    expect((await failure(cf.listZones({ email: 'a@b.c', globalAPIKey: 'ключ' }))).message).toMatch(
      /^Cloudflare: the global API key cannot be sent/,
    );
    const nc = createNamecheapClient({ clientIp: '198.51.100.7', timeoutMs: 500 });
    expect(
      (await failure(nc.getInfo({ endpointUrl: `${CLOSED}/xml.response`, apiUser: 'acme', apiKey: 'key\n' }, 'a.com')))
        .message,
    ).toMatch(/^Namecheap: the API key cannot be sent/);
    const da = createDirectAdminClient({ timeoutMs: 500 });
    expect(
      (await failure(da.listDomains({ baseUrl: CLOSED, username: 'admin', password: 'pass\nword' }))).message,
    ).toMatch(/^DirectAdmin: the Direct Admin password cannot be sent \(it must not contain line breaks/);
    const isp = createIspManagerClient({ timeoutMs: 500 });
    expect(
      (
        await failure(
          isp.listSites({ baseUrl: CLOSED, username: 'root', password: 'pa\u0007ss', acceptSelfSigned: false }),
        )
      ).message,
    ).toMatch(/^ISPmanager: the ISP Manager password cannot be sent/);
  });
});
