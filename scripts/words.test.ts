import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Texts people read are written out: "1 zone file", "2 zone files", never "zone file(s)" (issue 47).
const ROOTS = ['apps/web/src', 'apps/api/src', 'packages/contract/src'];
const LAZY_PLURAL = /[A-Za-z]\((?:s|es)\)/;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** The texts of a file: its string literals, template parts and JSX text (not its code). */
function texts(file: string): { text: string; line: number }[] {
  const src = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: { text: string; line: number }[] = [];
  const visit = (n: ts.Node) => {
    if (
      ts.isStringLiteral(n) ||
      ts.isNoSubstitutionTemplateLiteral(n) ||
      ts.isTemplateHead(n) ||
      ts.isTemplateMiddle(n) ||
      ts.isTemplateTail(n) ||
      ts.isJsxText(n)
    )
      out.push({ text: n.text, line: src.getLineAndCharacterOfPosition(n.getStart()).line + 1 });
    ts.forEachChild(n, visit);
  };
  visit(src);
  return out;
}

describe('words', () => {
  it('no text writes a plural lazily as "(s)"', () => {
    const found = ROOTS.flatMap(sources).flatMap((file) =>
      texts(file)
        .filter((t) => LAZY_PLURAL.test(t.text))
        .map((t) => `${file}:${t.line}: ${t.text.trim()}`),
    );
    expect(found).toEqual([]);
  });
});
