import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * docs/provider-calls.md lists every call a provider client makes, the document it was checked against and the test
 * that checks it (issue 43). This keeps it whole, reading the calls from the source rather than from a list here:
 *
 * - a provider client's calls are the members of the object its `create…Client` factory returns (read with the
 *   TypeScript parser, so a new method is seen however it is written);
 * - the sign-in's calls are the `openid-client` functions the API uses (it calls the library, not the wire);
 * - every provider the API fetches from (`providerFetch('<name>', …)`) must have its client below, so a new
 *   provider cannot be left out of this check either.
 *
 * Each call must appear in backticks in the first column of its section's table; each test file the table names in
 * backticks must exist. A call the table lacks fails here until its row is written, with its test.
 */

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const API = path.join(ROOT, 'apps/api/src');
const DOC = path.join(ROOT, 'docs/provider-calls.md');

/** Each provider client: its file, its factory, and the section of the table (heading start) that lists its calls. */
const CLIENTS: Record<string, { file: string; factory: string; section: string }> = {
  cloudflare: { file: 'cloudflare/cloudflare-client.ts', factory: 'createCloudflareClient', section: 'Cloudflare' },
  namecheap: { file: 'namecheap/namecheap-client.ts', factory: 'createNamecheapClient', section: 'Namecheap' },
  'yandex-webmaster': {
    file: 'yandex-webmaster/yandex-webmaster-client.ts',
    factory: 'createYandexWebmasterClient',
    section: 'Yandex Webmaster',
  },
  'google-search': {
    file: 'google-search/google-search-client.ts',
    factory: 'createGoogleSearchClient',
    section: 'Google Search Console',
  },
  indexnow: { file: 'indexnow/indexnow-client.ts', factory: 'createIndexNowClient', section: 'IndexNow' },
  directadmin: {
    file: 'directadmin/directadmin-client.ts',
    factory: 'createDirectAdminClient',
    section: 'DirectAdmin',
  },
  ispmanager: { file: 'ispmanager/ispmanager-client.ts', factory: 'createIspManagerClient', section: 'ISPmanager' },
  telegram: { file: 'notify/telegram.ts', factory: 'createTelegramClient', section: 'Notifications' },
  webhook: { file: 'notify/webhook.ts', factory: 'createWebhookClient', section: 'Notifications' },
  smtp: { file: 'notify/smtp.ts', factory: 'createSmtpClient', section: 'Notifications' },
};
/** Names passed to providerFetch that are no provider with a document of its own, and why. */
const NOT_PROVIDERS: Record<string, string> = {
  proxy: "the operator's own proxies, checked by fetching a page through them: no provider API, no document",
};
const OIDC_SECTION = 'OpenID Connect';

const parse = (file: string) => ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
const sourceFiles = (dir: string): string[] =>
  (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => path.join(dir, f));

/** The member names of the object `factory` returns: `return { … }`, or `return client` of `const client = { … }`. */
function clientCalls(file: string, factory: string): string[] {
  const sf = parse(file);
  const fn = sf.statements.find(
    (s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === factory,
  );
  if (!fn?.body) throw new Error(`${file}: no function ${factory}`);
  const returned = [...fn.body.statements].reverse().find(ts.isReturnStatement)?.expression;
  let object = returned;
  if (returned && ts.isIdentifier(returned))
    for (const s of fn.body.statements)
      if (ts.isVariableStatement(s))
        for (const d of s.declarationList.declarations)
          if (ts.isIdentifier(d.name) && d.name.text === returned.text) object = d.initializer;
  while (
    object &&
    (ts.isAsExpression(object) || ts.isSatisfiesExpression(object) || ts.isParenthesizedExpression(object))
  )
    object = object.expression;
  if (!object || !ts.isObjectLiteralExpression(object))
    throw new Error(`${file}: ${factory} returns no object literal`);
  return object.properties.map((p) => {
    if (p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) return p.name.text;
    throw new Error(`${file}: ${factory} returns a member this test cannot name (${p.getText().slice(0, 40)})`);
  });
}

/** The openid-client functions a file uses: through `import * as x` (x.fn) or by name. */
function openIdFunctions(file: string): string[] {
  const sf = parse(file);
  const out = new Set<string>();
  const namespaces = new Set<string>();
  for (const s of sf.statements) {
    if (!ts.isImportDeclaration(s) || (s.moduleSpecifier as ts.StringLiteral).text !== 'openid-client') continue;
    const bindings = s.importClause?.namedBindings;
    if (s.importClause?.isTypeOnly || !bindings) continue;
    if (ts.isNamespaceImport(bindings)) namespaces.add(bindings.name.text);
    else for (const e of bindings.elements) if (!e.isTypeOnly) out.add((e.propertyName ?? e.name).text);
  }
  const visit = (n: ts.Node) => {
    // Functions are lower case; Configuration and the other types are not calls.
    if (ts.isPropertyAccessExpression(n) && ts.isIdentifier(n.expression) && namespaces.has(n.expression.text))
      if (/^[a-z]/.test(n.name.text)) out.add(n.name.text);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return [...out];
}

/** The table's sections by heading, each with the backticked names of its first column. */
function docSections(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  let names: Set<string> | undefined;
  for (const line of fs.readFileSync(DOC, 'utf8').split('\n')) {
    if (line.startsWith('## ')) out.set(line.slice(3).trim(), (names = new Set()));
    else if (names && line.startsWith('|') && !line.startsWith('|---')) {
      const first = line.split('|')[1] ?? '';
      for (const m of first.matchAll(/`([^`]+)`/g)) names.add(m[1]!);
    }
  }
  return out;
}
const sectionOf = (sections: Map<string, Set<string>>, start: string) => {
  const found = [...sections].find(([heading]) => heading.startsWith(start));
  expect(found, `docs/provider-calls.md has no section "## ${start}…"`).toBeDefined();
  return found![1];
};

describe('docs/provider-calls.md', () => {
  it('has a client here for every provider the API fetches from', () => {
    const named = new Set<string>();
    for (const f of sourceFiles(API))
      for (const m of fs.readFileSync(f, 'utf8').matchAll(/providerFetch\(\s*'([^']+)'/g)) named.add(m[1]!);
    expect(named.size).toBeGreaterThan(5);
    const unknown = [...named].filter((p) => !CLIENTS[p] && !NOT_PROVIDERS[p]);
    expect(unknown, 'add the client to CLIENTS in this test and its calls to the table').toEqual([]);
  });

  it.each(Object.entries(CLIENTS))('lists every call of the %s client in the first column of its section', (_, c) => {
    const calls = clientCalls(path.join(API, 'integrations', c.file), c.factory);
    expect(calls.length).toBeGreaterThan(0);
    const listed = sectionOf(docSections(), c.section);
    expect(
      calls.filter((call) => !listed.has(call)),
      `calls of ${c.file} missing from "## ${c.section}" (add each with the document and the test that checks it)`,
    ).toEqual([]);
  });

  it('lists every openid-client function the sign-in uses in the OpenID Connect section', () => {
    const importers = sourceFiles(API).filter((f) => fs.readFileSync(f, 'utf8').includes("'openid-client'"));
    const used = new Set(importers.flatMap(openIdFunctions));
    // discovery and the code grant at least: a reader that finds nothing must not pass.
    expect([...used]).toEqual(expect.arrayContaining(['discovery', 'authorizationCodeGrant']));
    const listed = sectionOf(docSections(), OIDC_SECTION);
    expect([...used].filter((fn) => !listed.has(fn))).toEqual([]);
  });

  it('names only test files that exist', () => {
    const files = ['apps', 'packages', 'e2e'].flatMap((top) =>
      (fs.readdirSync(path.join(ROOT, top), { recursive: true }) as string[])
        .filter((f) => !f.includes('node_modules') && /\.(test|spec)\.tsx?$/.test(f))
        .map((f) => `${top}/${f.split(path.sep).join('/')}`),
    );
    const cited = [...fs.readFileSync(DOC, 'utf8').matchAll(/`([^`\s]+\.(?:test|spec)\.tsx?)`/g)].map((m) => m[1]!);
    expect(cited.length).toBeGreaterThan(10);
    // A path from the repository's root, or the end of one (`alerts.test.ts`, `integrations/notify/…`).
    const missing = cited.filter((c) => !files.some((f) => f === c || f.endsWith(`/${c}`)));
    expect(missing).toEqual([]);
  });
});
