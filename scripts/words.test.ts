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

// A field key in a sentence ("set serverId", "domainName: …") is a word people cannot read (issue 47): the
// messages name fields as the forms do. Placeholders of a template language ("{serverIp}") are not words.
// A key quoted as what to type ("the column "domainName"") is not a field named in a sentence either.
const CAMEL = /(?<![{\w/.$"-])[a-z]+[A-Z][A-Za-z]*(?![\w}("])/g;
/** Not field keys: names as their owners write them. */
const CAMEL_ALLOWED = new Set<string>([]);
const MESSAGE_ROOTS = ['apps/api/src', 'packages/contract/src'];
/** Errors no one reads in the console: the database layer's own invariants, for developers. */
const MESSAGE_SKIPPED = /^apps\/api\/src\/db\//;

/** The message texts of a file: *_MESSAGES and *_TEXT tables, `message:` options, and what errors are made with. */
function messages(file: string): { text: string; line: number }[] {
  const src = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: { text: string; line: number }[] = [];
  const collect = (n: ts.Node) => {
    if (
      ts.isStringLiteral(n) ||
      ts.isNoSubstitutionTemplateLiteral(n) ||
      ts.isTemplateHead(n) ||
      ts.isTemplateMiddle(n) ||
      ts.isTemplateTail(n)
    )
      out.push({ text: n.text, line: src.getLineAndCharacterOfPosition(n.getStart()).line + 1 });
    // Only the texts themselves: not the keys of a lookup inside a message (`LABELS[kind]`).
    if (ts.isElementAccessExpression(n) || ts.isCallExpression(n)) {
      if (ts.isCallExpression(n)) n.arguments.forEach(collect);
      return;
    }
    ts.forEachChild(n, collect);
  };
  const visit = (n: ts.Node) => {
    if (
      ts.isVariableDeclaration(n) &&
      ts.isIdentifier(n.name) &&
      /(^|_)(MESSAGES|TEXT)$/.test(n.name.text) &&
      n.initializer
    ) {
      collect(n.initializer);
      return;
    }
    if (
      ts.isPropertyAssignment(n) &&
      ts.isIdentifier(n.name) &&
      (n.name.text === 'message' || n.name.text === 'error')
    ) {
      collect(n.initializer);
      return;
    }
    if (
      ts.isNewExpression(n) &&
      ts.isIdentifier(n.expression) &&
      /Error$/.test(n.expression.text) &&
      n.arguments?.[0]
    ) {
      collect(n.arguments[0]);
      n.arguments.slice(1).forEach(visit);
      return;
    }
    ts.forEachChild(n, visit);
  };
  visit(src);
  return out;
}

describe('words', () => {
  it('no message of the API names a field by its key', () => {
    const files = MESSAGE_ROOTS.flatMap(sources).filter((f) => !MESSAGE_SKIPPED.test(f));
    const found = files.flatMap((file) =>
      messages(file).flatMap((t) =>
        [...t.text.matchAll(CAMEL)]
          .map((m) => m[0])
          .filter((w) => !CAMEL_ALLOWED.has(w))
          .map((w) => `${file}:${t.line}: ${w} in "${t.text.trim()}"`),
      ),
    );
    expect(found).toEqual([]);
  });

  it('no text writes a plural lazily as "(s)"', () => {
    const found = ROOTS.flatMap(sources).flatMap((file) =>
      texts(file)
        .filter((t) => LAZY_PLURAL.test(t.text))
        .map((t) => `${file}:${t.line}: ${t.text.trim()}`),
    );
    expect(found).toEqual([]);
  });
});
