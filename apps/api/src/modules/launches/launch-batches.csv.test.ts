import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../http/errors.ts';
import { parseCsv } from './launch-batches.service.ts';

describe('parseCsv (a batch of launches from a CSV)', () => {
  it('reads quoted fields with commas, doubled quotes and line breaks, CRLF or LF, a BOM and blank lines', () => {
    const text = '\uFEFFdomainName,brand\r\n"a.com","Acme, Inc."\r\n\r\nb.com,"say ""hi"""\n"c.com","two\nlines"';
    expect(parseCsv(text, 10)).toEqual([
      ['domainName', 'brand'],
      ['a.com', 'Acme, Inc.'],
      ['b.com', 'say "hi"'],
      ['c.com', 'two\nlines'],
    ]);
  });

  it('stops past the bound instead of reading everything', () => {
    const text = ['domainName', ...Array.from({ length: 50 }, (_, i) => `n${i}.com`)].join('\n');
    expect(parseCsv(text, 5).length).toBeLessThanOrEqual(7);
  });

  it('answers a quoted field left open as a 400 on the csv field that says how quotes are written', () => {
    let err: unknown;
    try {
      parseCsv('domainName,brand\na.com,"Acme\nb.com,x', 10);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    const v = err as ValidationError;
    expect(v.message).toMatch(/^The CSV could not be read \(.+\): a quoted field ends with its quote/);
    expect(v.fields).toEqual({ csv: v.message });
  });
});
