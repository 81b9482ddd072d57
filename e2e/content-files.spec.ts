import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { APIRequestContext } from '@playwright/test';
import { apiCreate, apiDelete, apiToken, dialog, expect, expectToast, signIn, tableRows, test } from './fixtures.ts';

type ServerItem = { _id: string; serverNo: number; IPAddress: string; sshPort: number; email: string | null };

/** The demo server on the in-process SSH host (the first seeded 127.0.0.1 server). */
async function liveServer(request: APIRequestContext, token: string): Promise<ServerItem> {
  const res = await request.get('/api/servers?search=127.0.0.1', { headers: { Authorization: token } });
  expect(res.status()).toBe(200);
  const items = ((await res.json()) as { data: { items: ServerItem[] } }).data.items;
  const live = [...items].sort((a, b) => a.serverNo - b.serverNo)[0];
  expect(live, 'the demo SSH server').toBeDefined();
  return live!;
}

test('content files: create the directory, upload a folder, edit and save, rename, download, delete', async ({
  page,
  request,
}) => {
  const token = await apiToken(request);
  const server = await liveServer(request, token);
  const name = `files-${Date.now().toString(36)}.test`;
  const domain = await apiCreate(request, token, 'domains', {
    domainName: name,
    status: 'active',
    serverId: server._id,
  });
  // A folder on disk to upload, with a subfolder.
  const local = fs.mkdtempSync(path.join(os.tmpdir(), 'fd-e2e-site-'));
  const site = path.join(local, 'site');
  fs.mkdirSync(path.join(site, 'css'), { recursive: true });
  fs.writeFileSync(path.join(site, 'index.html'), '<h1>Uploaded</h1>\n');
  fs.writeFileSync(path.join(site, 'css', 'style.css'), 'h1 { color: teal; }\n');

  await signIn(page);
  await page.goto(`/domains/${domain._id}/edit-content-files`);
  await expect(page.getByRole('heading', { name: 'Edit Content Files' })).toBeVisible();

  // 1. Create the domain directory.
  await page.getByRole('button', { name: 'Create Directory' }).click();
  await expect(page.getByRole('button', { name: 'Upload Folder' })).toBeVisible();
  await expect(page.getByText('This folder is empty.')).toBeVisible();

  // 2. Upload a folder: its structure is kept.
  await page.getByTestId('upload-folder-input').setInputFiles(site);
  await expectToast(page, 'Uploaded 2 files');
  await expect(tableRows(page).filter({ hasText: 'site' })).toBeVisible();
  await page.getByRole('button', { name: 'site', exact: true }).click();
  await expect(page.getByRole('button', { name: 'css', exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'index.html', exact: true })).toBeVisible();

  // 3. Open index.html in the editor, change it and save.
  await page.getByRole('button', { name: 'index.html', exact: true }).click();
  const editor = page.getByTestId('content-file-editor').locator('.cm-content');
  await expect(editor).toContainText('Uploaded');
  await editor.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('<h1>Edited in the browser</h1>');

  // Leaving with unsaved edits asks first: Close, then a link to another route; Stay keeps the edit.
  await page.getByRole('button', { name: 'Close' }).click();
  await expect(dialog(page)).toContainText('You have unsaved changes. Leave and lose them?');
  await dialog(page).getByRole('button', { name: 'Stay' }).click();
  await expect(dialog(page)).toHaveCount(0);
  await expect(editor).toContainText('Edited in the browser');
  await page.getByRole('link', { name: 'Back to domain' }).click();
  await expect(dialog(page)).toContainText('You have unsaved changes. Leave and lose them?');
  await dialog(page).getByRole('button', { name: 'Stay' }).click();
  // The confirm, titled "Unsaved changes" too, is gone before the editor's own note is read.
  await expect(dialog(page)).toHaveCount(0);
  await expect(page).toHaveURL(new RegExp(`/domains/${domain._id}/edit-content-files\\?`));
  await expect(editor).toContainText('Edited in the browser');
  await expect(page.getByText('Unsaved changes', { exact: true })).toBeVisible();

  await page.getByRole('button', { name: 'Save' }).click();
  await expectToast(page, 'File saved');
  const saved = await request.get(
    `/api/domains/${domain._id}/content-files/file-content?path=${encodeURIComponent('/site/index.html')}`,
    { headers: { Authorization: token } },
  );
  expect(((await saved.json()) as { data: { fileContent: string } }).data.fileContent).toContain(
    '<h1>Edited in the browser</h1>',
  );
  await page.getByRole('button', { name: 'Close' }).click();

  // 4. Rename it.
  await page.getByRole('button', { name: 'Rename index.html' }).click();
  await dialog(page).getByLabel('New name').fill('home.html');
  await dialog(page).getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('button', { name: 'home.html', exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'index.html', exact: true })).toHaveCount(0);

  // 5. Download it.
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download home.html' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('home.html');
  expect(fs.readFileSync(await download.path(), 'utf8')).toContain('<h1>Edited in the browser</h1>');

  // 6. Delete it, after the confirm.
  await page.getByRole('button', { name: 'Delete home.html' }).click();
  await expect(dialog(page)).toContainText('home.html');
  await dialog(page).getByRole('button', { name: 'Delete' }).click();
  await expectToast(page, 'Deleted home.html');
  await expect(page.getByRole('button', { name: 'home.html', exact: true })).toHaveCount(0);

  fs.rmSync(local, { recursive: true, force: true });
  await apiDelete(request, token, 'domains', domain._id);
});
