import { describe, expect, it } from 'vitest';
import { mainColumnIndex } from './list-table.tsx';

describe('mainColumnIndex', () => {
  it('takes the marked column, else a name-like header, else the first that is not a number', () => {
    expect(mainColumnIndex([{ header: '№' }, { header: 'HTTP' }, { header: 'IP Address', primary: true }])).toBe(2);
    expect(mainColumnIndex([{ header: '№' }, { header: 'Username' }, { header: 'Name' }, { header: 'Email' }])).toBe(1);
    expect(mainColumnIndex([{ header: '№' }, { header: 'HTTP' }, { header: 'IP Address' }])).toBe(2);
    expect(mainColumnIndex([{ header: '№' }, { header: 'Rules' }])).toBe(1);
    expect(mainColumnIndex([{ header: '№' }])).toBe(-1);
  });
});
