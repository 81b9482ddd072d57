import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { expect, signIn, test } from './fixtures.ts';

/**
 * Route-based code splitting: /login fetches no chunk of any feature area (nor the file editor's CodeMirror),
 * and each area's chunk is fetched when the area is first opened.
 */
const FEATURES = fs.readdirSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../apps/web/src/features'));
const chunkOf = (url: string) => /\/assets\/(.+)-[A-Za-z0-9_-]{8}\.js$/.exec(new URL(url).pathname)?.[1] ?? null;

function recordScripts(page: Page) {
  const chunks: string[] = [];
  page.on('request', (req) => {
    const name = req.url().endsWith('.js') ? chunkOf(req.url()) : null;
    if (name) chunks.push(name);
  });
  return chunks;
}

test('/login loads no chunk of another area; each area loads on first open', async ({ page }) => {
  const chunks = recordScripts(page);
  await page.goto('/login');
  await expect(page.getByRole('button', { name: 'Login' })).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(chunks).toContain('login-page');
  const areas = [...FEATURES, 'file-editor'];
  expect(chunks.filter((c) => areas.includes(c))).toEqual([]);

  await signIn(page);
  chunks.length = 0;
  await page.goto('/domains');
  await expect(page.getByRole('heading', { name: 'Domains' })).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(chunks).toContain('domains');
  // Modules the domain screens share with other areas (pickers, api helpers) come in chunks named after those
  // areas; areas the domain screens do not use, and the file editor, stay unloaded.
  for (const other of ['brands', 'audit-log', 'content-files', 'file-editor']) expect(chunks).not.toContain(other);

  chunks.length = 0;
  await page.goto('/brands');
  await expect(page.getByRole('heading', { name: 'Brands' })).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(chunks).toContain('brands');
  expect(chunks).not.toContain('domains');
});
