import { describe, expect, it } from 'vitest';
import { CHANGE_WINDOW, createChangeLog, type KeptPage, type ListChange, type ListValues } from './kept-pages.ts';

const row = (over: Partial<ListValues> = {}): ListValues => ({
  brandId: 'b1',
  serverId: null,
  cloudId: null,
  domainRegistratorId: null,
  status: 'active',
  zone: false,
  expires: null,
  health: null,
  failing: null,
  checks: null,
  name: 'example.com',
  redirect: null,
  nameUnicode: 'example.com',
  ...over,
});
const edit = (v: number, no: number, o: Partial<ListValues>, n: Partial<ListValues>): ListChange => ({
  v,
  no,
  o: row(o),
  n: row(n),
});
const page = (dv: number, filter: KeptPage<null>['filter'], nos: number[]): KeptPage<null> => ({
  ov: '',
  dv,
  at: 0,
  filter,
  nos: new Set(nos),
  result: null,
});

describe('the change log kept pages are checked against', () => {
  it('keeps a page through changes outside its filter or off its rows, and ends it otherwise', () => {
    const log = createChangeLog(60_000);
    log.take(10, [], 1000);
    log.take(12, [edit(11, 5, { brandId: 'b2' }, { brandId: 'b2', status: 'inactive' }), edit(12, 7, {}, {})], 1000);
    expect(log.stillExact(page(10, { brandId: 'b1' }, [1, 2, 3]), 12)).toBe(true);
    expect(log.stillExact(page(10, { brandId: 'b1' }, [7]), 12)).toBe(false);
    expect(log.stillExact(page(10, { status: 'inactive' }, []), 12)).toBe(false);
    // Found exact at 12, it is not checked against the same changes again.
    const p = page(10, { brandId: 'b1' }, [1]);
    expect(log.stillExact(p, 12)).toBe(true);
    expect(p.dv).toBe(12);
    // A page read after the changes needs nothing.
    expect(log.stillExact(page(12, {}, [7]), 12)).toBe(true);
    // An insert into the filter, or "anything" (no number), ends it.
    log.take(
      14,
      [
        { v: 13, no: 9, o: null, n: row() },
        { v: 14, no: null, o: null, n: null },
      ],
      1000,
    );
    expect(log.stillExact(page(12, { brandId: 'b1' }, [1]), 13)).toBe(false);
    expect(log.stillExact(page(13, { brandId: 'b2' }, [1]), 14)).toBe(false);
  });

  it('reuses no page older than what it has read, nor across a reset of the versions or too many changes', () => {
    const log = createChangeLog(60_000);
    // Nothing read yet: no history.
    expect(log.stillExact(page(5, {}, []), 6)).toBe(false);
    log.take(20, [], 0);
    expect(log.stillExact(page(19, { brandId: 'x' }, []), 20)).toBe(false);
    log.take(22, [edit(21, 1, { brandId: 'b9' }, { brandId: 'b9' })], 0);
    expect(log.stillExact(page(20, { brandId: 'x' }, []), 22)).toBe(true);
    // Too many changes to read: start again at the new version.
    log.take(30, null, 0);
    expect(log.stillExact(page(22, { brandId: 'x' }, []), 30)).toBe(false);
    expect(log.stillExact(page(30, { brandId: 'x' }, []), 30)).toBe(true);
    // Further behind than the database keeps changes: nothing older is trusted.
    log.take(30 + CHANGE_WINDOW + 1, [], 0);
    expect(log.stillExact(page(30, { brandId: 'x' }, []), 30 + CHANGE_WINDOW + 1)).toBe(false);
    log.take(30, [], 0);
    // Versions behind the cursor (the versions were emptied): nothing older is trusted.
    log.take(3, [], 0);
    expect(log.stillExact(page(30, {}, []), 3)).toBe(false);
    // A page newer than the check it is compared with is not trusted either.
    expect(log.stillExact(page(4, {}, []), 3)).toBe(false);
  });

  it('forgets changes older than it keeps, a whole version at a time, and then trusts no page from before', () => {
    const log = createChangeLog(1000);
    log.take(1, [], 0);
    log.take(3, [edit(2, 1, {}, {}), edit(2, 2, {}, {}), edit(3, 3, { brandId: 'z' }, { brandId: 'z' })], 0);
    expect(log.size).toBe(3);
    log.take(4, [edit(4, 4, { brandId: 'z' }, { brandId: 'z' })], 1500);
    expect(log.size).toBe(1);
    expect(log.stillExact(page(2, { brandId: 'q' }, []), 4)).toBe(false);
    expect(log.stillExact(page(3, { brandId: 'q' }, []), 4)).toBe(true);
  });

  it('leaves a filter it does not know to the database', async () => {
    const { domainMatches } = await import('./kept-pages.ts');
    expect(domainMatches(row(), { brandId: 'b1' })).toBe(true);
    expect(domainMatches(row(), { brandId: 'b1', newFilter: 'x' } as never)).toBe(undefined);
    expect(domainMatches(row(), { brandId: 'b2', newFilter: 'x' } as never)).toBe(false);
  });

  it('carries a count over the changes: rows in less rows out, or nothing where it cannot tell', () => {
    const log = createChangeLog(60_000);
    log.take(10, [], 0);
    log.take(
      14,
      [
        // Enters the search (renamed into it), leaves it (renamed out), stays out, is inserted into it, is deleted from it.
        edit(11, 1, { name: 'x.com' }, { name: 'shop-a.com' }),
        edit(12, 2, { name: 'shop-b.com' }, { name: 'b.com' }),
        edit(12, 3, { name: 'c.com' }, { name: 'd.com', status: 'inactive' }),
        { v: 13, no: 4, o: null, n: row({ name: 'shop-new.com' }) },
        { v: 14, no: 5, o: row({ redirect: 'shop.example' }), n: null },
      ],
      0,
    );
    const shop = { search: 'shop' };
    expect(log.countDelta(shop, 10, 14)).toBe(1 - 1 + 1 - 1);
    expect(log.countDelta(shop, 10, 11)).toBe(1);
    expect(log.countDelta(shop, 11, 13)).toBe(0);
    expect(log.countDelta(shop, 12, 14)).toBe(0);
    expect(log.countDelta({ status: 'inactive' }, 10, 14)).toBe(1);
    expect(log.countDelta(shop, 14, 14)).toBe(0);
    // Changes not read yet, or forgotten, or from before the log began: it cannot tell.
    expect(log.countDelta(shop, 10, 15)).toBe(undefined);
    expect(log.countDelta(shop, 9, 14)).toBe(undefined);
    // A name only the database can match (not plain ASCII), or a change of "anything".
    log.take(16, [edit(15, 6, { name: 'a.com' }, { name: 'xn--e1afmkfd.com', nameUnicode: 'пример.com' })], 0);
    expect(log.countDelta({ search: 'пример' }, 14, 15)).toBe(undefined);
    expect(log.countDelta({ status: 'active' }, 14, 15)).toBe(0);
    log.take(17, [{ v: 17, no: null, o: null, n: null }], 0);
    expect(log.countDelta({ status: 'active' }, 15, 17)).toBe(undefined);
  });
});
