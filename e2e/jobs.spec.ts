import fs from 'node:fs';
import path from 'node:path';
import { apiCreate, apiToken, expect, signIn, tableRows, test } from './fixtures.ts';

/**
 * Jobs in the browser: a sitemap for a domain on the demo's SSH host, a copy of its files to another domain,
 * and both on the Jobs screen. The site is written straight into the demo SSH host's directory (its root is
 * DATA_DIR/demo-ssh-root, served over SFTP as "/").
 */
const SSH_ROOT = path.join(process.env.FLEETDESK_E2E_DATA_DIR ?? '', 'demo-ssh-root');

test('jobs: generate a sitemap, copy the files to another domain, and watch both on the Jobs screen', async ({
  page,
  request,
}) => {
  // Two jobs over SFTP on a busy CI machine: more than the default minute.
  test.setTimeout(180_000);
  const token = await apiToken(request);
  const servers = await request.get('/api/servers?search=demo-ssh@fleetdesk.local', {
    headers: { Authorization: token },
  });
  const serverId = ((await servers.json()) as { data: { items: { _id: string }[] } }).data.items[0]!._id;
  const tag = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const source = await apiCreate<{ _id: string; domainName: string }>(request, token, 'domains', {
    domainName: `jobs-src-${tag}.test`,
    status: 'active',
    serverId,
  });
  const target = await apiCreate<{ _id: string; domainName: string }>(request, token, 'domains', {
    domainName: `jobs-dst-${tag}.test`,
    status: 'active',
    serverId,
  });
  const dir = path.join(SSH_ROOT, 'www', source.domainName);
  fs.mkdirSync(path.join(dir, 'blog'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'index.html'), '<h1>Home</h1>');
  fs.writeFileSync(path.join(dir, 'contact.html'), '<h1>Contact</h1>');
  fs.writeFileSync(path.join(dir, 'blog', 'first post.html'), '<h1>Post</h1>');
  fs.writeFileSync(path.join(dir, 'style.css'), 'h1{color:teal}');

  await signIn(page);

  // Generate Sitemap, from the Domain Actions menu.
  await page.goto(`/domains/${source._id}`);
  await page.getByRole('button', { name: 'Domain Actions' }).click();
  await page.getByRole('link', { name: 'Generate Sitemap' }).click();
  await expect(page).toHaveURL(new RegExp(`/domains/${source._id}/generate-sitemap$`));
  await expect(page.getByRole('heading', { name: `Generate Sitemap: ${source.domainName}` })).toBeVisible();
  await page.getByRole('button', { name: 'Generate Sitemap' }).click();
  const sitemapCard = page.getByTestId('job-card');
  await expect(sitemapCard).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });
  await expect(sitemapCard).toContainText('3 URLs written to:');
  await expect(sitemapCard.getByRole('list', { name: 'Sitemap files' })).toHaveText('sitemap.xml');
  const xml = fs.readFileSync(path.join(dir, 'sitemap.xml'), 'utf8');
  expect(xml).toContain(`<loc>https://${source.domainName}/blog/first%20post.html</loc>`);

  // Copy Content Files to the other domain, picked with the domain picker.
  await page.goto(`/domains/${source._id}/copy-content-files`);
  await expect(page.getByRole('heading', { name: `Copy Content Files: ${source.domainName}` })).toBeVisible();
  await page.getByRole('button', { name: 'Copy Content Files' }).click();
  await expect(page.getByText('Choose a target domain')).toBeVisible();
  await page.getByRole('button', { name: 'Select' }).click();
  const picker = page.getByRole('dialog', { name: 'Select a domain' });
  await picker.getByRole('searchbox', { name: 'Search' }).fill(target.domainName);
  await expect(tableRows(picker)).toHaveCount(1);
  await tableRows(picker).first().click();
  await expect(page.getByLabel('Target domain')).toHaveValue(target.domainName);
  await page.getByRole('button', { name: 'Copy Content Files' }).click();
  const copyCard = page.getByTestId('job-card');
  await expect(copyCard).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });
  // Four files from the site and the sitemap just written, in two directories (the root and blog).
  await expect(page.getByTestId('copy-summary')).toHaveText(/^5 files and 1 directory copied \(\d/);
  await expect(copyCard).toContainText(`Copied to ${target.domainName}`);
  expect(fs.readFileSync(path.join(SSH_ROOT, 'www', target.domainName, 'blog', 'first post.html'), 'utf8')).toBe(
    '<h1>Post</h1>',
  );

  // The Jobs screen, from the side menu: both jobs with their outcome.
  await page.goto('/');
  await page.getByRole('button', { name: 'Open menu' }).click();
  await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Jobs' }).click();
  await expect(page).toHaveURL(/\/jobs$/);
  await expect(page.getByRole('heading', { name: 'Jobs' })).toBeVisible();
  const rows = tableRows(page).filter({ hasText: source.domainName });
  await expect(rows).toHaveCount(2);
  await expect(rows.filter({ hasText: 'Generate Sitemap' })).toContainText('3 URLs in sitemap.xml');
  await expect(rows.filter({ hasText: 'Copy Content Files' })).toContainText('5 files and 1 directory copied');
  await expect(rows.first()).toContainText('Completed');
  await page.getByRole('combobox', { name: 'Kind' }).selectOption('domains.generate-sitemap');
  await expect(page).toHaveURL(/kind=domains.generate-sitemap/);
  await expect(tableRows(page).filter({ hasText: source.domainName })).toHaveCount(1);
});
