import { describe, expect, it } from 'vitest';
import { batchedWriter, readAhead } from './fleet.batching.ts';

const items = Array.from({ length: 10 }, (_, i) => ({ domainId: `d${i}` }));

describe('readAhead', () => {
  it('reads a chunk of items in one call and hands each out once', async () => {
    const calls: string[][] = [];
    const read = async (ids: string[]) => {
      calls.push(ids);
      return ids.filter((id) => id !== 'd2').map((_id) => ({ _id }));
    };
    const get = readAhead(items, 4, read);
    expect(await get(0)).toEqual({ _id: 'd0' });
    expect(await get(1)).toEqual({ _id: 'd1' });
    // A domain gone since the plan was made is missing, not an error.
    expect(await get(2)).toBeUndefined();
    expect(await get(3)).toEqual({ _id: 'd3' });
    expect(calls).toEqual([['d0', 'd1', 'd2', 'd3']]);
    // Workers ask out of order within a chunk; the next chunk starts where the first unread one is.
    expect(await get(5)).toEqual({ _id: 'd5' });
    expect(await get(4)).toEqual({ _id: 'd4' });
    expect(calls[1]).toEqual(['d5', 'd6', 'd7', 'd8']);
    expect(calls[2]).toEqual(['d4', 'd5', 'd6', 'd7']);
    // Asked again (a retry after a lost connection), an item is read anew.
    expect(await get(0)).toEqual({ _id: 'd0' });
    expect(calls).toHaveLength(4);
  });

  it('a failed read fails the callers of its chunk, and the next ask reads again', async () => {
    let fail = true;
    const get = readAhead(items, 3, async (ids) => {
      if (fail) throw new Error('connection lost');
      return ids.map((_id) => ({ _id }));
    });
    await expect(get(0)).rejects.toThrow('connection lost');
    fail = false;
    expect(await get(0)).toEqual({ _id: 'd0' });
  });
});

describe('batchedWriter', () => {
  it('writes many rows per call, in order, and close writes the rest', async () => {
    const writes: number[][] = [];
    const w = batchedWriter<number>(async (rows) => void writes.push(rows));
    for (let i = 0; i < 450; i++) w.add(i);
    await w.close();
    expect(writes.map((b) => b.length)).toEqual([200, 200, 50]);
    expect(writes.flat()).toEqual(Array.from({ length: 450 }, (_, i) => i));
  });

  it('a few rows are written after a short delay, without close', async () => {
    const writes: number[][] = [];
    const w = batchedWriter<number>(async (rows) => void writes.push(rows));
    w.add(1);
    w.add(2);
    await new Promise((r) => setTimeout(r, 400));
    expect(writes).toEqual([[1, 2]]);
    await w.close();
    expect(writes).toEqual([[1, 2]]);
  });

  it('close answers a write that failed', async () => {
    const w = batchedWriter<number>(async () => {
      throw new Error('constraint');
    });
    w.add(1);
    await expect(w.close()).rejects.toThrow('constraint');
  });
});
