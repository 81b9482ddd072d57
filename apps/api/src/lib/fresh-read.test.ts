import { describe, expect, it } from 'vitest';
import { freshRead, freshReadByKey } from './fresh-read.ts';

/** A read whose answers the test releases by hand, counting the reads started. */
function manual() {
  const pending: { resolve: (v: number) => void; reject: (e: Error) => void }[] = [];
  let value = 0;
  let started = 0;
  const read = () =>
    new Promise<number>((resolve, reject) => {
      started++;
      // The value is taken when the read starts, as a statement's snapshot is.
      const at = value;
      pending.push({ resolve: () => resolve(at), reject });
    });
  return {
    read,
    set: (v: number) => (value = v),
    started: () => started,
    finish: async () => {
      pending.shift()!.resolve(0);
      await new Promise((r) => setTimeout(r, 0));
    },
    fail: async () => {
      pending.shift()!.reject(new Error('connection lost'));
      await new Promise((r) => setTimeout(r, 0));
    },
  };
}

describe('freshRead', () => {
  it('answers every caller from a read that started after it asked, sharing reads under load', async () => {
    const m = manual();
    const get = freshRead(m.read);
    const a = get();
    m.set(1); // a write commits after a's read started
    const b = get();
    const c = get();
    expect(m.started()).toBe(1);
    await m.finish();
    // b and c asked after the first read started: they share a second one, which sees the write.
    expect(m.started()).toBe(2);
    await m.finish();
    expect(await a).toBe(0);
    expect(await b).toBe(1);
    expect(await c).toBe(1);
    // Nothing in flight: the next caller starts a read of its own at once.
    const d = get();
    expect(m.started()).toBe(3);
    await m.finish();
    expect(await d).toBe(1);
  });

  it('passes a failed read to its callers only, and the next callers read again', async () => {
    const m = manual();
    const get = freshRead(m.read);
    const a = get();
    const b = get();
    await m.fail();
    await expect(a).rejects.toThrow('connection lost');
    await m.finish();
    expect(await b).toBe(0);
    const c = get();
    expect(m.started()).toBe(3);
    await m.finish();
    expect(await c).toBe(0);
  });
});

describe('freshReadByKey', () => {
  it('shares reads per key, never a read that started before the caller asked', async () => {
    const a = manual();
    const b = manual();
    const get = freshReadByKey<number>();
    const a1 = get('a', a.read);
    const b1 = get('b', b.read);
    // Each key apart: one read each.
    expect([a.started(), b.started()]).toEqual([1, 1]);
    // A write after a's read started: callers of a asking now share the next read, which sees it.
    a.set(1);
    const a2 = get('a', a.read);
    const a3 = get('a', a.read);
    expect(a.started()).toBe(1);
    await a.finish();
    expect(a.started()).toBe(2);
    await a.finish();
    expect([await a1, await a2, await a3]).toEqual([0, 1, 1]);
    await b.finish();
    expect(await b1).toBe(0);
    // Nothing waits on a: a new caller starts a read at once.
    const a4 = get('a', a.read);
    expect(a.started()).toBe(3);
    await a.finish();
    expect(await a4).toBe(1);
  });
});
