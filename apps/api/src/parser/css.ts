import { TokenType, tokenize, type CSSToken } from '@csstools/css-tokenizer';

const quoted = (s: string) => `"${s.replace(/["\\\n]/g, (c) => (c === '\n' ? '\\a ' : `\\${c}`))}"`;

/**
 * Rewrites every URL a stylesheet references, found with a real tokenizer: `url(x)`, `url("x")` and
 * `@import "x"`. `map(url)` answers the new reference (or null to keep it); the rest is kept byte for byte.
 */
export function rewriteCss(css: string, map: (url: string, isImport: boolean) => string | null): string {
  const tokens: CSSToken[] = tokenize({ css });
  const out: string[] = [];
  let importPending = false;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const type = t[0];
    if (type === TokenType.EOF) break;
    if (type === TokenType.AtKeyword) {
      importPending = String((t[4] as { value: string }).value).toLowerCase() === 'import';
      out.push(t[1]);
      continue;
    }
    if (type === TokenType.URL) {
      const url = (t[4] as { value: string }).value;
      const to = map(url, importPending);
      out.push(to === null ? t[1] : `url(${quoted(to)})`);
      importPending = false;
      continue;
    }
    if (type === TokenType.Function && String((t[4] as { value: string }).value).toLowerCase() === 'url') {
      // url( "x" ): a function token, optional whitespace, one string, optional whitespace, ")".
      let j = i + 1;
      const parts = [t[1]];
      while (tokens[j]?.[0] === TokenType.Whitespace) parts.push(tokens[j++]![1]);
      const str = tokens[j];
      if (str?.[0] === TokenType.String) {
        const to = map((str[4] as { value: string }).value, importPending);
        parts.push(to === null ? str[1] : quoted(to));
        out.push(...parts);
        i = j;
        importPending = false;
        continue;
      }
      out.push(t[1]);
      continue;
    }
    if (type === TokenType.String && importPending) {
      const to = map((t[4] as { value: string }).value, true);
      out.push(to === null ? t[1] : quoted(to));
      importPending = false;
      continue;
    }
    if (type === TokenType.Semicolon || type === TokenType.OpenCurly) importPending = false;
    out.push(t[1]);
  }
  return out.join('');
}
