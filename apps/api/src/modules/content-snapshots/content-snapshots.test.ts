import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSshHost, type SshHost } from '@fleetdesk/simulators/ssh-host/index.ts';
import { CONTENT_SNAPSHOT_MESSAGES as M } from '@fleetdesk/contract';
import { generateKeyPair } from '../../files/ssh/index.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { unique } from '../../test/fixtures.ts';
import { SNAPSHOTS_DIR } from './content-snapshots.service.ts';

// Content snapshots end to end (issue 44, decision 078): real engine, two SSH test hosts, every change made through
// the API, restored through the API, and read back over SFTP (the API's editor read) and on the hosts' disks.
let t: TestApp;
let hostA: SshHost;
let hostB: SshHost;
let h: string;
const key = generateKeyPair('ed25519');
// 1 KB in the database, at most 64 KB per snapshot and 100 KB per server: the larger files go to the server, the
// largest are refused, and a server's oldest snapshots make room for new ones.
const DB_KB = 1;
const MAX_KB = 64;
const SERVER_KB = 100;

beforeAll(async () => {
  [hostA, hostB] = await Promise.all([
    startSshHost({ authorizedKeys: [key.publicLine] }),
    startSshHost({ authorizedKeys: [key.publicLine] }),
  ]);
  for (const host of [hostA, hostB]) fs.mkdirSync(path.join(host.rootDir, 'www'));
  t = await createTestApp(
    {
      CONTENT_SNAPSHOT_DB_KB: String(DB_KB),
      CONTENT_SNAPSHOT_MAX_MB: String(MAX_KB / 1024),
      CONTENT_SNAPSHOT_SERVER_MB: String(SERVER_KB / 1024),
    },
    { jobOptions: { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1, progressThrottleMs: 0 } },
  );
  await t.c.startJobs({ periodic: false });
  h = await t.tokenFor(['cnv']);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await Promise.all([hostA?.close(), hostB?.close()]);
});

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const call = (method: Method, url: string, payload?: object | string) =>
  t.inject({
    method,
    url,
    headers: { authorization: h, ...(typeof payload === 'string' ? { 'content-type': 'text/plain' } : {}) },
    ...(payload !== undefined ? { payload } : {}),
  });
const ok = async (method: Method, url: string, payload?: object | string, status = 200) => {
  const res = await call(method, url, payload);
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
  return res.json().data;
};

async function serverOn(host: SshHost) {
  const s = await ok('POST', '/api/servers', { IPAddress: '127.0.0.1', sshPort: host.port, domainsPath: '/www' }, 201);
  await ok('POST', `/api/servers/${s._id}/rsa-key`, { rsaKey: key.privateKey });
  return s._id as string;
}
async function domainOn(host: SshHost, serverId?: string) {
  const name = `${unique('site')}.com`;
  const d = await ok(
    'POST',
    '/api/domains',
    { domainName: name, status: 'active', serverId: serverId ?? (await serverOn(host)) },
    201,
  );
  const dir = path.join(host.rootDir, 'www', name);
  return { id: d._id as string, name, dir, serverId: d.serverId as string };
}
/** Writes files (path → content) under a directory. */
function seed(dir: string, files: Record<string, string | Buffer>) {
  for (const [p, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    fs.writeFileSync(path.join(dir, p), content);
  }
}
/** A directory as { path: sha256 of the file | "dir" }, for comparing a tree before and after. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        out[r] = 'dir';
        walk(path.join(d, e.name), r);
      } else
        out[r] = crypto
          .createHash('sha256')
          .update(fs.readFileSync(path.join(d, e.name)))
          .digest('hex');
    }
  };
  walk(dir, '');
  return out;
}
/** The file's text read back over SFTP, through the editor's route. */
const readBack = async (domainId: string, p: string) =>
  (await ok('GET', `/api/domains/${domainId}/content-files/file-content?path=${encodeURIComponent(p)}`)).fileContent;
type Entry = {
  _id: string;
  action: string;
  details: Record<string, unknown>;
  revert: { possible: boolean; reason: string | null; snapshotId?: string };
};
const lastEntry = async (domainId: string, action: string): Promise<Entry> => {
  const items = (await ok('GET', `/api/audit-log?entity=domains&entityId=${domainId}&action=${action}`)).items;
  expect(items.length, `no ${action} entry`).toBeGreaterThan(0);
  return items[0];
};
const snapshotOf = async (domainId: string, action: string) => {
  const e = await lastEntry(domainId, action);
  expect(e.revert, JSON.stringify(e.details)).toMatchObject({ possible: true, reason: null });
  return e.revert.snapshotId!;
};
const preview = (id: string) => ok('GET', `/api/content-snapshots/${id}`);
const restore = (id: string, force?: string[]) =>
  call('POST', `/api/content-snapshots/${id}/restore`, force ? { force } : {});
const finish = async (jobId: string) => {
  await t.c.jobEngine.waitFor(jobId, 30_000);
  return ok('GET', `/api/jobs/${jobId}`);
};

describe('restore of a file save', () => {
  it('previews the file, puts it back, and the restore is itself restorable (redo)', async () => {
    const d = await domainOn(hostA);
    seed(d.dir, { 'index.html': '<h1>before</h1>', 'other.html': 'untouched' });
    const before = tree(d.dir);
    await ok('PUT', `/api/domains/${d.id}/content-files/file-content?path=%2Findex.html`, '<h1>after</h1>');
    expect(await readBack(d.id, '/index.html')).toBe('<h1>after</h1>');

    const id = await snapshotOf(d.id, 'content_files_save');
    const p = await preview(id);
    expect(p).toMatchObject({ restorable: true, reason: null, action: 'save', storage: 'db', files: 1 });
    expect(p.counts).toEqual({ restore: 1, same: 0, changed: 0 });
    expect(p.items).toEqual([
      {
        path: '/index.html',
        status: 'restore',
        does: 'write',
        before: expect.objectContaining({ exists: true, size: 15 }),
        written: expect.objectContaining({ exists: true, size: 14 }),
        now: expect.objectContaining({ exists: true, size: 14 }),
      },
    ]);
    expect(p.items[0].now.sha256).toBe(p.items[0].written.sha256);
    // The bytes kept in the database are sealed with the app key, never stored as they were.
    const sealed = (await t.c.repos.contentSnapshots.content(id, 0))!.toString();
    expect(sealed).toMatch(/^v1:/);
    expect(sealed).not.toContain('before');
    expect(sealed).not.toContain(Buffer.from('<h1>before</h1>').toString('base64'));

    // A body that is not { force } is refused with the field named; nothing is written.
    const bad = await call('POST', `/api/content-snapshots/${id}/restore`, { force: 'index.html', extra: 1 });
    expect(bad.statusCode).toBe(400);
    expect(await readBack(d.id, '/index.html')).toBe('<h1>after</h1>');
    // No body at all is a restore with nothing ticked.
    const res = await t.inject({
      method: 'POST',
      url: `/api/content-snapshots/${id}/restore`,
      headers: { authorization: h },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ restored: ['/index.html'], left: [], failed: [] });
    expect(await readBack(d.id, '/index.html')).toBe('<h1>before</h1>');
    expect(tree(d.dir)).toEqual(before);
    // Restoring again: nothing left to put back.
    const again = await restore(id);
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe(M.nothing);

    // The restore is audited, and restoring it puts the save back.
    const redo = await snapshotOf(d.id, 'content_files_restore');
    expect(redo).toBe(res.json().data.snapshotId);
    expect((await restore(redo)).statusCode).toBe(200);
    expect(await readBack(d.id, '/index.html')).toBe('<h1>after</h1>');
  }, 60_000);

  it('reports a file changed since with both values and leaves it alone unless ticked', async () => {
    const d = await domainOn(hostA);
    seed(d.dir, { 'a.txt': 'a1', 'b.txt': 'b1' });
    const form = (files: Record<string, string>) => {
      const boundary = `----fd${crypto.randomBytes(8).toString('hex')}`;
      const body = Object.entries(files)
        .map(
          ([n, c]) =>
            `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${n}"\r\nContent-Type: text/plain\r\n\r\n${c}\r\n`,
        )
        .join('');
      return { body: `${body}--${boundary}--\r\n`, type: `multipart/form-data; boundary=${boundary}` };
    };
    const up = form({ 'a.txt': 'a2', 'b.txt': 'b2', 'new.txt': 'brand new' });
    const res = await t.inject({
      method: 'POST',
      url: `/api/domains/${d.id}/content-files/upload?path=%2F`,
      headers: { authorization: h, 'content-type': up.type },
      payload: up.body,
    });
    expect(res.statusCode, res.body).toBe(200);
    // Someone changes b.txt after the upload.
    fs.writeFileSync(path.join(d.dir, 'b.txt'), 'b3 by hand');

    const id = await snapshotOf(d.id, 'content_files_upload');
    const p = await preview(id);
    expect(p.counts).toEqual({ restore: 2, same: 0, changed: 1 });
    const b = p.items.find((i: { path: string }) => i.path === '/b.txt');
    expect(b).toMatchObject({
      status: 'changed',
      does: 'write',
      now: { exists: true, size: 10 },
      written: { size: 2 },
    });
    expect(b.now.sha256).not.toBe(b.written.sha256);
    expect(p.items.find((i: { path: string }) => i.path === '/new.txt')).toMatchObject({
      status: 'restore',
      does: 'remove',
      before: { exists: false },
    });

    // A path that did not change since cannot be ticked.
    const badTick = await restore(id, ['/a.txt']);
    expect(badTick.statusCode).toBe(400);
    expect(badTick.json().message).toBe(M.onlyChanged('/a.txt'));

    const r = (await restore(id)).json().data;
    expect(r.restored.sort()).toEqual(['/a.txt', '/new.txt']);
    expect(r.left).toEqual([{ path: '/b.txt', reason: M.changedSince }]);
    expect(await readBack(d.id, '/a.txt')).toBe('a1');
    expect(await readBack(d.id, '/b.txt')).toBe('b3 by hand');
    expect(fs.existsSync(path.join(d.dir, 'new.txt'))).toBe(false);

    // Ticked, it is restored too.
    const forced = await restore(id, ['/b.txt']);
    expect(forced.statusCode, forced.body).toBe(200);
    expect(forced.json().data.restored).toEqual(['/b.txt']);
    expect(await readBack(d.id, '/b.txt')).toBe('b1');
  }, 60_000);
});

describe('restore of a removal', () => {
  it('puts back a removed file, and a removed directory tree kept on the server next to the domain directories', async () => {
    const d = await domainOn(hostA);
    const big = crypto.randomBytes(8 * 1024);
    seed(d.dir, {
      'index.html': 'home',
      'blog/post.html': '<p>post</p>',
      'blog/img/photo.bin': big,
      'blog/deep/er/note.txt': 'note',
    });
    fs.mkdirSync(path.join(d.dir, 'blog', 'empty'));
    const before = tree(d.dir);

    await ok('DELETE', `/api/domains/${d.id}/content-files/remove`, { path: '/index.html' });
    const fileSnap = await snapshotOf(d.id, 'content_files_remove');
    await ok('DELETE', `/api/domains/${d.id}/content-files/remove`, { path: '/blog' });
    expect(fs.existsSync(path.join(d.dir, 'blog'))).toBe(false);
    const dirSnap = await snapshotOf(d.id, 'content_files_remove');

    const p = await preview(dirSnap);
    // 8 KB is over the database's 1 KB: the tree is kept on the server, outside the domain's directory.
    expect(p).toMatchObject({ storage: 'server', restorable: true, counts: { restore: 8, same: 0, changed: 0 } });
    expect(fs.existsSync(path.join(hostA.rootDir, 'www', SNAPSHOTS_DIR, dirSnap))).toBe(true);
    expect(p.items.map((i: { path: string; does: string }) => `${i.does} ${i.path}`)).toContain('mkdir /blog/empty');

    expect((await restore(dirSnap)).json().data.failed).toEqual([]);
    expect((await restore(fileSnap)).json().data.restored).toEqual(['/index.html']);
    expect(tree(d.dir)).toEqual(before);
    expect(await readBack(d.id, '/blog/deep/er/note.txt')).toBe('note');
  }, 60_000);

  it('keeps no snapshot past its size bound, and the entry says why (the removal still runs)', async () => {
    const d = await domainOn(hostA);
    seed(d.dir, { 'huge/a.bin': crypto.randomBytes(40 * 1024), 'huge/b.bin': crypto.randomBytes(40 * 1024) });
    await ok('DELETE', `/api/domains/${d.id}/content-files/remove`, { path: '/huge' });
    expect(fs.existsSync(path.join(d.dir, 'huge'))).toBe(false);
    const e = await lastEntry(d.id, 'content_files_remove');
    expect(e.details.snapshotSkipped).toBe(`the files it replaces are larger than ${MAX_KB} KB`);
    expect(e.revert).toEqual({
      possible: false,
      reason: M.skipped(`the files it replaces are larger than ${MAX_KB} KB`),
    });
    // Nothing is left behind on the server.
    const kept = path.join(hostA.rootDir, 'www', SNAPSHOTS_DIR);
    const ids = fs.existsSync(kept) ? fs.readdirSync(kept) : [];
    const rows = await Promise.all(ids.map((id) => t.c.repos.contentSnapshots.find(id)));
    expect(rows.every(Boolean)).toBe(true);
  }, 60_000);
});

describe('restore of a copy onto a domain and of a domain replacement', () => {
  for (const kind of ['copy-content-files', 'replacement'] as const) {
    it(`${kind}: puts back the replaced files and removes what it added`, async () => {
      const src = await domainOn(hostA);
      const dst = await domainOn(hostB);
      seed(src.dir, { 'index.html': 'new home', 'blog/post.html': 'new post', 'css/site.css': 'body{}' });
      seed(dst.dir, { 'index.html': 'old home', 'css/site.css': 'body{}', 'keep.txt': 'mine' });
      const before = tree(dst.dir);
      const payload =
        kind === 'replacement'
          ? { targetDomainId: dst.id, createCloudFlareZone: false, copyCloudFlareFirewallRules: false, copyFiles: true }
          : { targetDomainId: dst.id };
      const job = await finish((await ok('POST', `/api/domains/${src.id}/${kind}`, payload, 202))._id);
      expect(job.state, job.error).toBe('completed');
      expect(await readBack(dst.id, '/index.html')).toBe('new home');

      const id = await snapshotOf(dst.id, 'content_files_copy');
      const p = await preview(id);
      // css/site.css was written with the bytes it had, and css/ was there: neither is a change.
      expect(p.items.map((i: { path: string; status: string; does: string }) => [i.path, i.status, i.does])).toEqual([
        ['/blog', 'restore', 'rmdir'],
        ['/index.html', 'restore', 'write'],
        ['/blog/post.html', 'restore', 'remove'],
      ]);
      expect((await restore(id)).json().data).toMatchObject({ failed: [], left: [] });
      expect(tree(dst.dir)).toEqual(before);
      expect(await readBack(dst.id, '/index.html')).toBe('old home');
    }, 60_000);
  }
});

describe('what cannot be restored', () => {
  it('an expired snapshot says so (its bytes are pruned on the server), and so does a removed domain', async () => {
    const d = await domainOn(hostA);
    seed(d.dir, { 'big.bin': crypto.randomBytes(4 * 1024) });
    await ok('DELETE', `/api/domains/${d.id}/content-files/remove`, { path: '/big.bin' });
    const id = await snapshotOf(d.id, 'content_files_remove');
    const kept = path.join(hostA.rootDir, 'www', SNAPSHOTS_DIR, id);
    expect(fs.existsSync(kept)).toBe(true);

    await t.c.database.exec(`UPDATE content_snapshots SET expires_at = now() - interval '1 day' WHERE id = '${id}'`);
    const p = await preview(id);
    expect(p).toMatchObject({ restorable: false, items: [] });
    expect(p.reason).toMatch(/^The snapshot expired on \d{4}-\d\d-\d\d: not restorable$/);
    const refused = await restore(id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe(p.reason);
    // The next change prunes it: its directory on the server goes, and the preview still says why.
    seed(d.dir, { 'x.txt': 'x' });
    await ok('PUT', `/api/domains/${d.id}/content-files/file-content?path=%2Fx.txt`, 'y');
    expect(fs.existsSync(kept)).toBe(false);
    expect((await preview(id)).reason).toBe(p.reason);

    // A removed domain: the preview is a reason, never an error.
    const save = await snapshotOf(d.id, 'content_files_save');
    expect((await call('DELETE', `/api/domains/${d.id}`)).statusCode).toBe(200);
    expect(await preview(save)).toMatchObject({ restorable: false, reason: M.domainGone, items: [] });
    expect((await call('GET', '/api/content-snapshots/00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await call('GET', '/api/content-snapshots/nope')).statusCode).toBe(400);
  }, 60_000);

  it("a server's oldest snapshots are removed to keep its snapshots within their bound", async () => {
    const d = await domainOn(hostB);
    const files = ['one', 'two', 'three'];
    seed(d.dir, Object.fromEntries(files.map((f) => [`${f}.bin`, crypto.randomBytes(40 * 1024)])));
    const ids: string[] = [];
    for (const f of files) {
      await ok('DELETE', `/api/domains/${d.id}/content-files/remove`, { path: `/${f}.bin` });
      ids.push(await snapshotOf(d.id, 'content_files_remove'));
    }
    const kept = (id: string) => fs.existsSync(path.join(hostB.rootDir, 'www', SNAPSHOTS_DIR, id));
    // 120 KB over a bound of 100: the first went, the other two stay.
    expect(ids.map(kept)).toEqual([false, true, true]);
    expect(await preview(ids[0]!)).toMatchObject({
      restorable: false,
      reason: M.pruned(`the server's snapshots are kept within ${SERVER_KB} KB`),
    });
    expect((await restore(ids[1]!)).json().data.restored).toEqual(['/two.bin']);
    expect(fs.statSync(path.join(d.dir, 'two.bin')).size).toBe(40 * 1024);
  }, 60_000);

  it('an entry with a snapshot can also be reverted through the one revert route, as a plan of one row', async () => {
    const d = await domainOn(hostA);
    seed(d.dir, { 'a.txt': 'a' });
    await ok('PUT', `/api/domains/${d.id}/content-files/file-content?path=%2Fa.txt`, 'b');
    const e = await lastEntry(d.id, 'content_files_save');
    const res = await call('POST', '/api/fleet/reverts', { auditId: e._id });
    expect(res.statusCode, res.body).toBe(201);
    const waitPlan = async (id: string, states: string[]) => {
      for (let i = 0; i < 600; i++) {
        const p = (await call('GET', `/api/fleet/plans/${id}`)).json().data;
        if (states.includes(p.state)) return p;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the plan did not end');
    };
    const planned = await waitPlan(res.json().data._id, ['planned', 'failed']);
    expect(planned.counts).toMatchObject({ total: 1, change: 1 });
    const item = (await call('GET', `/api/fleet/plans/${planned._id}/items`)).json().data.items[0];
    expect(item).toMatchObject({ outcome: 'change', after: 'Content files (1): as before the change' });
    expect((await call('POST', `/api/fleet/plans/${planned._id}/run`)).statusCode).toBe(200);
    const ran = await waitPlan(planned._id, ['completed', 'completed_with_failures', 'failed']);
    expect(ran.run.done).toBe(1);
    expect(fs.readFileSync(path.join(d.dir, 'a.txt'), 'utf8')).toBe('a');
    // The restore is audited with its own snapshot, so it can be put back in turn.
    const restoreEntry = await lastEntry(d.id, 'content_files_restore');
    expect(restoreEntry.revert).toMatchObject({ possible: true });
  }, 60_000);
});

describe('what an attacker tries', () => {
  it('a burst of restores of one snapshot restores once; the others find nothing left to put back', async () => {
    const d = await domainOn(hostA);
    seed(d.dir, { 'index.html': 'one' });
    await ok('PUT', `/api/domains/${d.id}/content-files/file-content?path=%2Findex.html`, 'two');
    const id = await snapshotOf(d.id, 'content_files_save');
    const answers = await Promise.all(Array.from({ length: 6 }, () => restore(id)));
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    for (const r of answers.filter((a) => a.statusCode === 409)) expect(r.json().message).toBe(M.nothing);
    expect(fs.readFileSync(path.join(d.dir, 'index.html'), 'utf8')).toBe('one');
    const restores = (await ok('GET', `/api/audit-log?entity=domains&entityId=${d.id}&action=content_files_restore`))
      .items;
    expect(restores).toHaveLength(1);
  }, 60_000);

  it('ticks only paths of the snapshot: climbing out, a NUL or another path is refused and nothing is written', async () => {
    const d = await domainOn(hostA);
    seed(d.dir, { 'a.txt': 'a' });
    await ok('PUT', `/api/domains/${d.id}/content-files/file-content?path=%2Fa.txt`, 'b');
    const id = await snapshotOf(d.id, 'content_files_save');
    for (const force of [['../../etc/passwd'], ['/a.txt\u0000'], ['/other.txt'], ['x'.repeat(5_000)]]) {
      const res = await restore(id, force);
      expect(res.statusCode, `${JSON.stringify(force).slice(0, 40)}: ${res.body}`).toBe(400);
      expect(res.json().message).toBeTruthy();
    }
    const huge = await restore(
      id,
      Array.from({ length: 20_001 }, (_, i) => `/f${i}`),
    );
    expect(huge.statusCode).toBe(400);
    expect(fs.readFileSync(path.join(d.dir, 'a.txt'), 'utf8')).toBe('b');
    // The id in upper case is the same snapshot; the restore is audited under the canonical id.
    const res = await restore(id.toUpperCase());
    expect(res.statusCode, res.body).toBe(200);
    expect((await lastEntry(d.id, 'content_files_restore')).details.restoredFrom).toBe(id);
    expect(fs.readFileSync(path.join(d.dir, 'a.txt'), 'utf8')).toBe('a');
  }, 60_000);
});
