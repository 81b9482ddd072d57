import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair } from '../files/ssh/index.ts';
import { createTestApp, type TestApp } from './harness.ts';

/**
 * Creates every resource that holds secrets with known values, then reads and updates each one in every way
 * the API offers, and fails if any response body or log line carries one of those values.
 * Add a resource here when it gains a secret.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ LOG_LEVEL: 'trace' });
});
afterAll(async () => t?.close());

const key = generateKeyPair('ed25519');
const SECRETS = {
  cloudPassword: 'S3cret-cloud-password-1',
  cloudToken: 'S3cret-cloud-token-2',
  cloudKey: 'S3cret-cloud-gak-3',
  cloudEmailPassword: 'S3cret-cloud-emailpw-4',
  proxyPassword: 'S3cret-proxy-pw-5',
  daPassword: 'S3cret-da-pw-6',
  ispPassword: 'S3cret-isp-pw-7',
  userPassword: 'S3cret-user-password-8',
  registratorKey: 'S3cret-namecheap-key-9',
};
const keyMaterial = key.privateKey.split('\n')[1]!;

type Resource = { path: string; create: object; update: object };

describe('secrets never leave the server', () => {
  it('are absent from every list, get, create and update response and every log line', async () => {
    const h = { authorization: await t.tokenFor(['cnv']) };
    const bodies: string[] = [];
    const call = async (method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, payload?: object) => {
      const res = await t.inject({ method, url, headers: h, ...(payload ? { payload } : {}) });
      bodies.push(`${method} ${url} ${res.statusCode} ${JSON.stringify(res.headers)} ${res.body}`);
      return res;
    };
    const resources: Resource[] = [
      {
        path: '/api/clouds',
        create: {
          email: 'leak@example.com',
          password: SECRETS.cloudPassword,
          token: SECRETS.cloudToken,
          globalAPIKey: SECRETS.cloudKey,
          emailPassword: SECRETS.cloudEmailPassword,
        },
        update: { token: `${SECRETS.cloudToken}-new` },
      },
      {
        path: '/api/proxies',
        create: {
          IPAddress: '10.0.0.1',
          httpPort: 3128,
          proxyType: 'http',
          username: 'u',
          password: SECRETS.proxyPassword,
        },
        update: { password: `${SECRETS.proxyPassword}-new` },
      },
      {
        path: '/api/servers',
        create: {
          IPAddress: '10.0.0.2',
          directAdminPassword: SECRETS.daPassword,
          ispmanagerPassword: SECRETS.ispPassword,
        },
        update: { directAdminPassword: `${SECRETS.daPassword}-new` },
      },
      {
        path: '/api/users',
        create: {
          username: 'leaky',
          name: 'Leaky',
          email: 'leaky@example.com',
          status: 'active',
          password: SECRETS.userPassword,
          roles: [],
        },
        update: { password: `${SECRETS.userPassword}-new` },
      },
      {
        path: '/api/domain-registrators',
        create: {
          name: 'NC',
          type: 'namecheap',
          credentials: {
            endpointUrl: 'https://api.sandbox.namecheap.com/xml.response',
            apiUsername: 'nc',
            apiKey: SECRETS.registratorKey,
          },
        },
        update: {
          credentials: {
            endpointUrl: 'https://api.sandbox.namecheap.com/xml.response',
            apiUsername: 'nc',
            apiKey: `${SECRETS.registratorKey}-new`,
          },
        },
      },
    ];
    for (const r of resources) {
      const created = await call('POST', r.path, r.create);
      expect(created.statusCode, `${r.path}: ${created.body}`).toBe(201);
      const id = created.json().data._id;
      await call('GET', r.path);
      await call('GET', `${r.path}?search=e`);
      await call('GET', `${r.path}/${id}`);
      expect((await call('PATCH', `${r.path}/${id}`, r.update)).statusCode).toBe(200);
      expect((await call('PUT', `${r.path}/${id}`, r.update)).statusCode).toBe(200);
      await call('GET', `${r.path}/${id}`);
    }
    const server = (await call('GET', '/api/servers')).json().data.items[0];
    expect((await call('POST', `/api/servers/${server._id}/rsa-key`, { rsaKey: key.privateKey })).statusCode).toBe(200);
    await call('GET', `/api/servers/${server._id}/rsa-key`);
    await call('GET', `/api/servers/${server._id}`);
    await call('POST', '/auth/login', { username: 'leaky', password: `${SECRETS.userPassword}-new` });
    await call('GET', '/api/audit-log');
    await call('GET', '/api/audit-log?page=2');

    const haystack = [...bodies, ...t.logs].join('\n');
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(haystack.includes(value), `${name} leaked`).toBe(false);
    }
    expect(haystack.includes(keyMaterial), 'private key leaked').toBe(false);
    // The token travels in the Authorization header of the login response only, never in a log line.
    expect(t.logs.join('\n')).not.toContain(h.authorization.replace('Bearer ', ''));
  });
});
