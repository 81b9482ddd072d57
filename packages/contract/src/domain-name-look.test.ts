import { describe, expect, it } from 'vitest';
import { domainNameLook, lookAlikeWarning } from './domain-name-look.ts';

describe('domainNameLook', () => {
  it('warns on a label that mixes scripts, naming them and the form browsers show', () => {
    // Cyrillic "а" (U+0430) for the Latin "a"; Cyrillic palochka "ӏ" (U+04CF) for the Latin "l".
    expect(domainNameLook('\u0430pple-test.com')).toEqual({
      ascii: 'xn--pple-test-zyh.com',
      unicode: '\u0430pple-test.com',
      isIdn: true,
      warning:
        '"\u0430pple-test" mixes Latin and Cyrillic letters: it may pass for another name, and browsers show it as xn--pple-test-zyh.com',
    });
    expect(lookAlikeWarning('paypa\u04cf-test.com')).toMatch(/mixes Latin and Cyrillic letters/);
    expect(lookAlikeWarning('g\u03bfogle.com')).toMatch(/mixes Latin and Greek letters/);
    // The stored (punycode) form is read back to Unicode first.
    expect(domainNameLook('xn--pple-test-zyh.com')).toMatchObject({ unicode: '\u0430pple-test.com' });
    expect(lookAlikeWarning('xn--pple-test-zyh.com')).not.toBeNull();
  });

  it('warns on a Cyrillic label whose every letter looks Latin, under an ASCII top level', () => {
    expect(lookAlikeWarning('\u0440\u0430\u0443\u0440\u0430\u04cf.com')).toMatch(
      /Cyrillic letters that look like Latin/,
    );
    expect(lookAlikeWarning('\u0440\u0430\u0443\u0440\u0430\u04cf.\u0440\u0444')).toBeNull();
  });

  it('accepts one script per label, and Latin with the Japanese, Chinese and Korean sets', () => {
    for (const name of [
      'example.com',
      'bücher.de',
      'пример.рф',
      'ソニー.jp',
      'amazon-日本.com',
      '例え.jp',
      '한국-shop.kr',
    ])
      expect(domainNameLook(name)?.warning, name).toBeNull();
    expect(domainNameLook('example.com')).toMatchObject({ isIdn: false, unicode: 'example.com' });
    expect(domainNameLook('bücher.de')).toMatchObject({ isIdn: true, ascii: 'xn--bcher-kva.de' });
    expect(domainNameLook('not a name')).toBeNull();
  });
});
