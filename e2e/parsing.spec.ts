import type { APIRequestContext } from '@playwright/test';
import { apiToken, dialog, expect, signIn, test } from './fixtures.ts';

/** The demo domain whose parser is disabled and which nothing has parsed yet (apps/api/src/demo/seed-parsing.ts). */
const DOMAIN = 'coffee-mirror.com';

async function domainId(request: APIRequestContext, token: string, name: string): Promise<string> {
  const res = await request.get(`/api/domains?search=${encodeURIComponent(name)}`, {
    headers: { Authorization: token },
  });
  expect(res.status()).toBe(200);
  const items = ((await res.json()) as { data: { items: { _id: string; domainName: string }[] } }).data.items;
  const found = items.find((d) => d.domainName === name);
  expect(found, `the demo domain ${name}`).toBeDefined();
  return found!._id;
}

test('parsing: confirm past parser_disabled, watch the progress reach done, open a parsed page', async ({
  page,
  request,
  consoleGuard,
}) => {
  // The browser logs the 400 that carries parser_disabled.
  consoleGuard.allow(/status of 400/);
  const token = await apiToken(request);
  const id = await domainId(request, token, DOMAIN);
  await signIn(page);

  // The Domain Actions menu leads to the page.
  await page.goto(`/domains/${id}`);
  await page.getByRole('button', { name: 'Domain Actions' }).click();
  await page.locator('.dropdown-menu.show').getByRole('link', { name: 'Domain Parsing' }).click();
  await expect(page).toHaveURL(new RegExp(`/domains/${id}/parsing$`));
  await expect(page.getByRole('heading', { name: `Domain Parsing: ${DOMAIN}` })).toBeVisible();
  await expect(page.getByRole('table', { name: 'Parser settings' })).toContainText('Parser enabledNo');

  // Disabled parser: the server answers 400 parser_disabled and the page asks to confirm; No leaves it alone.
  await page.getByRole('button', { name: 'Start Parsing' }).click();
  await expect(dialog(page)).toContainText('The parser is disabled for this domain');
  await dialog(page).getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog(page)).toHaveCount(0);
  await expect(page.getByTestId('parsing-progress')).toHaveCount(0);

  await page.getByRole('button', { name: 'Start Parsing' }).click();
  await dialog(page).getByRole('button', { name: 'Parse anyway' }).click();

  // The progress bar reaches done, with the counts and the failed URL listed.
  const card = page.getByTestId('parsing-progress');
  await expect(card).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });
  await expect(card.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '100');
  await expect(card.locator('[data-count="Pages done"] dd')).toHaveText('8');
  await expect(card.locator('[data-count="Assets"] dd')).toHaveText('11');
  await expect(card.locator('[data-count="Errors"] dd')).toHaveText('1');
  await expect(card.getByRole('table', { name: 'Failed URLs' })).toContainText('/blog/2025/old-post.html');
  await expect(card.getByRole('table', { name: 'Failed URLs' })).toContainText('HTTP 404');
  await expect(card).toContainText('fetched directly (no parser proxy region is set)');

  // The domain itself carries the dates (spec: parsingStartDate, parsingEndDate, parsingProgress).
  const res = await request.get(`/api/domains/${id}`, { headers: { Authorization: token } });
  const d = ((await res.json()) as { data: { parsingStartDate: string; parsingEndDate: string } }).data;
  expect(d.parsingStartDate).toBeTruthy();
  expect(d.parsingEndDate).toBeTruthy();

  // The copy is in the file manager: a parsed page, with its links made relative.
  await card.getByRole('link', { name: 'Open in file manager' }).click();
  await expect(page.getByRole('heading', { name: 'Edit Content Files' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'assets', exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'blog', exact: true }).click();
  await page.getByRole('button', { name: '2026', exact: true }).click();
  await page.getByRole('button', { name: 'brewing-guide.html', exact: true }).click();
  const editor = page.getByTestId('content-file-editor').locator('.cm-content');
  await expect(editor).toContainText('A brewing guide');
  await expect(editor).toContainText('href="../../assets/css/site.css"');
  await expect(editor).toContainText('href="../../menu/index.html"');
});
