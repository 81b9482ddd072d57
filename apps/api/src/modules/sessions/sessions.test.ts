import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { auditLog } from '../../db/schema/index.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { describeUserAgent } from './user-agent.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());
beforeEach(async () => t.reset());

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
const auth = (h: string) => ({ authorization: h });
const PASSWORD = 'correct horse battery';

async function signIn(username: string, ua: string, ip: string) {
  const res = await t.inject({
    method: 'POST',
    url: '/auth/login',
    payload: { username, password: PASSWORD },
    headers: { 'user-agent': ua },
    remoteAddress: ip,
  });
  return String(res.headers.authorization);
}

describe('the user agent', () => {
  it('reads as browser, version and system', () => {
    expect(describeUserAgent(CHROME)).toBe('Chrome 131 on Linux');
    expect(describeUserAgent(FIREFOX)).toBe('Firefox 133 on Windows 10');
    expect(describeUserAgent(null)).toBe('Unknown');
  });
});

describe('own sessions', () => {
  it('lists them with browser, address and times, and ends one at once', async () => {
    await t.tokenFor(['cnv:brands'], { username: 'sue' });
    const laptop = await signIn('sue', CHROME, '10.3.0.1');
    const phone = await signIn('sue', FIREFOX, '10.3.0.2');
    const list = await t.inject({ method: 'GET', url: '/auth/sessions', headers: auth(laptop) });
    expect(list.statusCode).toBe(200);
    const items = list.json().data as { _id: string; browser: string; ip: string; current: boolean }[];
    const mine = items.find((s) => s.current)!;
    expect(mine).toMatchObject({ browser: 'Chrome 131 on Linux', ip: '10.3.0.1', username: 'sue' });
    const other = items.find((s) => s.ip === '10.3.0.2')!;
    expect(other).toMatchObject({ browser: 'Firefox 133 on Windows 10', current: false });
    expect(JSON.stringify(items)).not.toContain(phone.replace('Bearer ', ''));

    const end = await t.inject({ method: 'DELETE', url: `/auth/sessions/${other._id}`, headers: auth(laptop) });
    expect(end.statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/api/brands', headers: auth(phone) })).statusCode).toBe(401);
    expect((await t.inject({ method: 'GET', url: '/api/brands', headers: auth(laptop) })).statusCode).toBe(200);
    const left = (await t.inject({ method: 'GET', url: '/auth/sessions', headers: auth(laptop) })).json().data;
    // The session tokenFor opened, and the laptop's; not the phone's.
    expect(left.map((s: { _id: string }) => s._id)).toContain(mine._id);
    expect(left.map((s: { _id: string }) => s._id)).not.toContain(other._id);
    expect(left).toHaveLength(items.length - 1);
    const sue = (await t.c.repos.users.findByUsername('sue'))!;
    const audit = await t.c.database.db.select().from(auditLog).where(eq(auditLog.action, 'logout'));
    expect(audit).toEqual([
      expect.objectContaining({
        userId: sue.id,
        details: expect.objectContaining({ sessionId: other._id, endedBy: 'self' }),
      }),
    ]);
  });

  it("cannot end someone else's session from the profile", async () => {
    await t.tokenFor(['cnv:brands'], { username: 'ann' });
    const ann = await signIn('ann', CHROME, '10.3.1.1');
    const bob = await t.tokenFor(['cnv:brands'], { username: 'bob' });
    const bobs = (await t.inject({ method: 'GET', url: '/auth/sessions', headers: auth(bob) })).json().data;
    const res = await t.inject({ method: 'DELETE', url: `/auth/sessions/${bobs[0]._id}`, headers: auth(ann) });
    expect(res.statusCode).toBe(404);
    expect((await t.inject({ method: 'GET', url: '/api/brands', headers: auth(bob) })).statusCode).toBe(200);
  });
});

describe("an administrator and everyone's sessions", () => {
  it('lists and searches them, and ends one at once', async () => {
    const admin = await t.tokenFor(['cnv:users', 'cnv:brands'], { username: 'boss' });
    await t.tokenFor(['cnv:brands'], { username: 'worker1' });
    const worker = await signIn('worker1', FIREFOX, '10.4.0.9');
    const list = await t.inject({ method: 'GET', url: '/api/sessions?search=worker1', headers: auth(admin) });
    expect(list.statusCode).toBe(200);
    const { items, itemsCount } = list.json().data;
    expect(itemsCount).toBe(2);
    const target = items.find((s: { ip: string }) => s.ip === '10.4.0.9');
    expect(target).toMatchObject({ username: 'worker1', browser: 'Firefox 133 on Windows 10' });
    const all = (await t.inject({ method: 'GET', url: '/api/sessions', headers: auth(admin) })).json().data;
    expect(all.itemsCount).toBe(3);

    const end = await t.inject({ method: 'DELETE', url: `/api/sessions/${target._id}`, headers: auth(admin) });
    expect(end.statusCode).toBe(200);
    expect((await t.inject({ method: 'GET', url: '/auth/me', headers: auth(worker) })).statusCode).toBe(401);
    const again = await t.inject({ method: 'DELETE', url: `/api/sessions/${target._id}`, headers: auth(admin) });
    expect(again.statusCode).toBe(404);
  });

  it('needs cnv:users, and every rule of the user whose session it ends', async () => {
    const plain = await t.tokenFor(['cnv:brands']);
    expect((await t.inject({ method: 'GET', url: '/api/sessions', headers: auth(plain) })).statusCode).toBe(403);
    const usersOnly = await t.tokenFor(['cnv:users']);
    await t.tokenFor(['cnv'], { username: 'chief' });
    const chief = await signIn('chief', CHROME, '10.5.0.1');
    const { items } = (
      await t.inject({ method: 'GET', url: '/api/sessions?search=chief', headers: auth(usersOnly) })
    ).json().data;
    const res = await t.inject({ method: 'DELETE', url: `/api/sessions/${items[0]._id}`, headers: auth(usersOnly) });
    expect(res.statusCode).toBe(403);
    expect((await t.inject({ method: 'GET', url: '/auth/me', headers: auth(chief) })).statusCode).toBe(200);
  });
});

describe("another user's session details", () => {
  it('are shown only to holders of every rule its user holds, and never found by address otherwise', async () => {
    await t.tokenFor(['cnv'], { username: 'root' });
    await t.tokenFor(['cnv:brands'], { username: 'bea' });
    await signIn('root', CHROME, '10.4.0.1');
    await signIn('bea', FIREFOX, '10.4.0.2');
    const manager = await t.tokenFor(['cnv:users', 'cnv:brands'], { username: 'max' });
    const list = await t.inject({ method: 'GET', url: '/api/sessions', headers: auth(manager) });
    expect(list.statusCode).toBe(200);
    type Row = { username: string; ip: string | null; browser: string; userAgent: string | null };
    const items = list.json().data.items as Row[];
    expect(list.body).not.toContain('10.4.0.1');
    expect(list.body).not.toContain(CHROME);
    for (const s of items.filter((x) => x.username === 'root')) {
      expect(s).toMatchObject({ ip: null, userAgent: null, browser: 'Hidden' });
    }
    expect(items.find((x) => x.username === 'bea' && x.ip === '10.4.0.2')).toMatchObject({
      browser: 'Firefox 133 on Windows 10',
    });
    // The address search does not tell whether an administrator signed in from there.
    const probe = await t.inject({ method: 'GET', url: '/api/sessions?search=10.4.0.1', headers: auth(manager) });
    expect(probe.json().data.itemsCount).toBe(0);
    // An administrator sees everything.
    const admin = await t.tokenFor(['cnv']);
    const all = await t.inject({ method: 'GET', url: '/api/sessions?search=10.4.0.1', headers: auth(admin) });
    expect(all.json().data.items).toEqual([expect.objectContaining({ username: 'root', ip: '10.4.0.1' })]);
  });
});
