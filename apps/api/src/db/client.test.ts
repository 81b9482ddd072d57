import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openPglite, secureDataDir, trackedBossDb } from './client.ts';

const mode = (p: string) => fs.statSync(p).mode & 0o777;
const all = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? [p, ...all(p)] : [p];
  });

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-modes-'));
  dirs.push(d);
  return d;
};

describe('data directory modes', () => {
  it('fixes existing directories to 0700 and files to 0600 on start, leaving links alone', () => {
    const root = path.join(tmp(), 'data');
    fs.mkdirSync(path.join(root, 'pgdata', 'base'), { recursive: true });
    fs.chmodSync(root, 0o777);
    fs.chmodSync(path.join(root, 'pgdata'), 0o755);
    const file = path.join(root, 'pgdata', 'base', 'wal');
    fs.writeFileSync(file, 'x');
    fs.chmodSync(file, 0o666);
    const outside = path.join(tmp(), 'outside');
    fs.writeFileSync(outside, 'y');
    fs.chmodSync(outside, 0o644);
    fs.symlinkSync(outside, path.join(root, 'link'));
    secureDataDir(root);
    expect(mode(root)).toBe(0o700);
    expect(mode(path.join(root, 'pgdata'))).toBe(0o700);
    expect(mode(path.join(root, 'pgdata', 'base'))).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    expect(mode(outside)).toBe(0o644);
  });

  it('creates the embedded database with no file readable by others', async () => {
    const root = path.join(tmp(), 'data');
    const database = await openPglite(path.join(root, 'pgdata'));
    try {
      // Already on start, not only after a clean close.
      expect(mode(path.join(root, 'pgdata', 'PG_VERSION'))).toBe(0o600);
      expect(mode(root)).toBe(0o700);
      await database.exec("CREATE TABLE t (v text); INSERT INTO t VALUES ('secret');");
    } finally {
      await database.close();
    }
    const entries = all(root);
    expect(entries.length).toBeGreaterThan(50);
    const loose = entries.filter((p) => (fs.statSync(p).isDirectory() ? mode(p) !== 0o700 : mode(p) !== 0o600));
    expect(loose).toEqual([]);
  }, 180_000);
});

describe("pg-boss's statements around a close", () => {
  it('waits for those already sent, and sends none once the close has begun (pg-boss does not await them)', async () => {
    let release: (() => void) | undefined;
    const sent: string[] = [];
    const boss = trackedBossDb({
      executeSql: (text) => {
        sent.push(text);
        return new Promise((resolve) => (release = () => resolve({ rows: [{ x: 1 }] })));
      },
    });
    const before = boss.db.executeSql('update job set state = $1', ['completed']);
    let settled = false;
    const settling = boss.settle().then(() => (settled = true));
    // A job's end recorded after the close began (its handler ended late): not sent, and never rejected (pg-boss
    // does not await it), nor answered (pg-boss reads each statement's rows its own way).
    let answered = false;
    boss.db.executeSql('update job set state = $1', ['failed']).then(
      () => (answered = true),
      () => (answered = true),
    );
    expect(sent).toEqual(['update job set state = $1']);
    await new Promise((r) => setTimeout(r, 10));
    expect(settled).toBe(false);
    release!();
    await settling;
    await expect(before).resolves.toEqual({ rows: [{ x: 1 }] });
    expect(answered).toBe(false);
  });
});
