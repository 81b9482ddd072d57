import { describe, expect, it } from 'vitest';
import { goToPageTarget, pageWindow, parsePage, rowNumber, totalPages } from './pager-logic.ts';

describe('totalPages', () => {
  it('rounds up and never goes below 1', () => {
    expect(totalPages(0)).toBe(1);
    expect(totalPages(1)).toBe(1);
    expect(totalPages(20)).toBe(1);
    expect(totalPages(21)).toBe(2);
    expect(totalPages(400)).toBe(20);
    expect(totalPages(-5)).toBe(1);
  });
});

describe('pageWindow', () => {
  it('shows every page when there are few', () => {
    expect(pageWindow(1, 1)).toEqual([1]);
    expect(pageWindow(2, 3)).toEqual([1, 2, 3]);
    expect(pageWindow(5, 10)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('shows at most 10 numbers', () => {
    for (let current = 1; current <= 50; current++) {
      const window = pageWindow(current, 50);
      expect(window).toHaveLength(10);
      expect(window).toContain(current);
    }
  });

  it('starts at the first page near the start', () => {
    expect(pageWindow(1, 30)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(pageWindow(6, 30)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('centres on the current page in the middle', () => {
    expect(pageWindow(15, 30)).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
  });

  it('ends at the last page near the end', () => {
    expect(pageWindow(30, 30)).toEqual([21, 22, 23, 24, 25, 26, 27, 28, 29, 30]);
    expect(pageWindow(27, 30)).toEqual([21, 22, 23, 24, 25, 26, 27, 28, 29, 30]);
  });

  it('clamps a current page outside the range', () => {
    expect(pageWindow(99, 12)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(pageWindow(0, 3)).toEqual([1, 2, 3]);
  });

  it('honours a smaller maximum', () => {
    expect(pageWindow(5, 20, 3)).toEqual([4, 5, 6]);
  });
});

describe('goToPageTarget', () => {
  it('acts only on numbers above 0', () => {
    expect(goToPageTarget('0', 5)).toBeNull();
    expect(goToPageTarget('-3', 5)).toBeNull();
    expect(goToPageTarget('', 5)).toBeNull();
    expect(goToPageTarget('abc', 5)).toBeNull();
    expect(goToPageTarget('0.5', 5)).toBeNull();
    expect(goToPageTarget(0, 5)).toBeNull();
  });

  it('goes to the page asked for', () => {
    expect(goToPageTarget('3', 5)).toBe(3);
    expect(goToPageTarget(' 2 ', 5)).toBe(2);
    expect(goToPageTarget(4, 5)).toBe(4);
    expect(goToPageTarget('2.7', 5)).toBe(2);
  });

  it('clamps to the last page', () => {
    expect(goToPageTarget('99', 5)).toBe(5);
    expect(goToPageTarget(6, 5)).toBe(5);
  });
});

describe('rowNumber', () => {
  it('is index + 1 + (page - 1) * 20', () => {
    expect(rowNumber(0, 1)).toBe(1);
    expect(rowNumber(19, 1)).toBe(20);
    expect(rowNumber(0, 2)).toBe(21);
    expect(rowNumber(4, 3)).toBe(45);
  });
});

describe('parsePage', () => {
  it('accepts whole numbers from 1', () => {
    expect(parsePage('3')).toBe(3);
    expect(parsePage('1')).toBe(1);
  });

  it('falls back to 1', () => {
    expect(parsePage(null)).toBe(1);
    expect(parsePage('')).toBe(1);
    expect(parsePage('0')).toBe(1);
    expect(parsePage('-2')).toBe(1);
    expect(parsePage('2.5')).toBe(1);
    expect(parsePage('x')).toBe(1);
  });
});
