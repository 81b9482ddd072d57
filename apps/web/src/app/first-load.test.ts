import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const APP = path.dirname(fileURLToPath(import.meta.url));

/**
 * The modules a file brings with it when loaded: its static imports, followed through our own files (a dynamic
 * `import()` is a chunk of its own, loaded later, so it is not followed). Type-only imports are erased by the build.
 */
function staticGraph(entries: string[]) {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pattern = /^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const [, spec] of fs.readFileSync(file, 'utf8').matchAll(pattern)) {
      if (spec!.startsWith('.')) visit(path.resolve(path.dirname(file), spec!));
      else packages.add(spec!);
    }
  };
  for (const entry of entries) visit(path.join(APP, entry));
  return { files: [...files].map((f) => path.relative(APP, f)), packages: [...packages] };
}

// A signed-out first visit: the entry, then the page's own chunk.
const SIGNED_OUT = ['main.tsx', 'pages/login-page.tsx', 'pages/sso-callback-page.tsx'];

describe('the signed-out first load (decision 048)', () => {
  it('brings neither the query library nor the forms libraries nor the signed-in shell', () => {
    const { files, packages } = staticGraph(SIGNED_OUT);
    expect(packages).toContain('react-router');
    for (const heavy of ['@tanstack/react-query', 'zod', 'react-hook-form', '@hookform/resolvers']) {
      expect(packages, heavy).not.toContain(heavy);
    }
    for (const shell of [
      'signed-in-shell.tsx',
      'layout.tsx',
      'breadcrumbs.tsx',
      'require-auth.tsx',
      'create-menu.tsx',
    ]) {
      expect(files, shell).not.toContain(shell);
    }
  });

  it("uses Bootstrap's classes rather than react-bootstrap's Form, Card and Alert", () => {
    const { packages } = staticGraph(SIGNED_OUT);
    for (const part of ['react-bootstrap/Form', 'react-bootstrap/Card', 'react-bootstrap/Alert', 'react-bootstrap']) {
      expect(packages, part).not.toContain(part);
    }
  });

  it('the signed-in shell brings the query library (so the walk does see it)', () => {
    expect(staticGraph(['signed-in-shell.tsx']).packages).toContain('@tanstack/react-query');
  });
});
