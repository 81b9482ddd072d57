import { afterAll, describe, expect, it } from 'vitest';
import { openPostgres, type Database } from '../../db/client.ts';
import { createZoneLocks, type ZoneLocks } from './zone-lock.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs holders of keys at once and records when each one starts and ends. */
async function overlapOf(runs: [ZoneLocks, string][]): Promise<string[]> {
  const events: string[] = [];
  await Promise.all(
    runs.map(([locks, key], i) =>
      locks.run(key, async () => {
        events.push(`start ${i}`);
        await sleep(60);
        events.push(`end ${i}`);
      }),
    ),
  );
  return events;
}

describe('zone locks in one process', () => {
  it('queue holders of one key and let other keys run alongside', async () => {
    const locks = createZoneLocks(null);
    expect(
      await overlapOf([
        [locks, 'z1'],
        [locks, 'z1'],
        [locks, 'z1'],
      ]),
    ).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
    expect(
      (
        await overlapOf([
          [locks, 'z1'],
          [locks, 'z2'],
        ])
      ).slice(0, 2),
    ).toEqual(['start 0', 'start 1']);
  });

  it('release the key when the holder fails', async () => {
    const locks = createZoneLocks(null);
    await expect(locks.run('z', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await locks.run('z', async () => 'next')).toBe('next');
  });
});

// Two Database handles stand for two API processes: their in-process queues are separate.
describe.runIf(!!process.env.DATABASE_URL)('zone locks across processes (PostgreSQL advisory locks)', () => {
  const opened: Database[] = [];
  afterAll(async () => {
    await Promise.all(opened.map((d) => d.close()));
  });
  const processLocks = async (waitMs?: number) => {
    const database = await openPostgres(process.env.DATABASE_URL!, { max: 2 });
    opened.push(database);
    return createZoneLocks(database, { waitMs });
  };

  it('serialise one zone across processes', async () => {
    const a = await processLocks();
    const b = await processLocks();
    const key = `test-zone-${Math.random()}`;
    // Either process may get the lock first; what matters is that the second starts only after the first ended.
    const order = await overlapOf([
      [a, key],
      [b, key],
    ]);
    const first = order[0] === 'start 1' ? 1 : 0;
    expect(order).toEqual([`start ${first}`, `end ${first}`, `start ${1 - first}`, `end ${1 - first}`]);
  });

  it('answer 409 when another process holds the zone for longer than the wait', async () => {
    const a = await processLocks();
    const b = await processLocks(100);
    const key = `test-zone-${Math.random()}`;
    let release!: () => void;
    const held = a.run(key, () => new Promise<void>((r) => (release = r)));
    await sleep(100);
    await expect(b.run(key, async () => 'never')).rejects.toMatchObject({ status: 409, code: 'zone_push_busy' });
    release();
    await held;
    expect(await b.run(key, async () => 'after')).toBe('after');
  });
});
