import type { APIRequestContext } from '@playwright/test';
import { apiCall, apiCreate, apiDelete, apiToken, dialog, expect, signIn, test } from './fixtures.ts';

type ServerItem = { _id: string; serverNo: number };

/** Saves a content file through the editor's route (text/plain). */
async function save(request: APIRequestContext, token: string, domainId: string, file: string, text: string) {
  const res = await request.put(
    `/api/domains/${domainId}/content-files/file-content?path=${encodeURIComponent(file)}`,
    { headers: { Authorization: token, 'Content-Type': 'text/plain' }, data: text },
  );
  expect(res.ok(), await res.text()).toBe(true);
}
const readBack = async (request: APIRequestContext, token: string, domainId: string, file: string) =>
  (
    await apiCall<{ fileContent: string }>(
      request,
      token,
      'GET',
      `/api/domains/${domainId}/content-files/file-content?path=${encodeURIComponent(file)}`,
    )
  ).fileContent;

test('restore a saved content file from its audit entry, previewed file by file (issue 44)', async ({
  page,
  request,
}, info) => {
  const token = await apiToken(request);
  const servers = await apiCall<{ items: ServerItem[] }>(request, token, 'GET', '/api/servers?search=127.0.0.1');
  const server = [...servers.items].sort((a, b) => a.serverNo - b.serverNo)[0]!;
  const domain = await apiCreate(request, token, 'domains', {
    domainName: `restore-${Date.now().toString(36)}.test`,
    status: 'active',
    serverId: server._id,
  });
  await apiCall(request, token, 'POST', `/api/domains/${domain._id}/content-files/create-domain-dir`);
  await save(request, token, domain._id, '/index.html', '<h1>Before</h1>');
  await save(request, token, domain._id, '/index.html', '<h1>After</h1>');

  await signIn(page);
  await page.goto(`/domains/${domain._id}/edit-content-files`);
  await page.getByRole('link', { name: 'History' }).click();
  await expect(page).toHaveURL(/\/audit-log\?entity=domains&entityId=/);
  const newest = page.locator('table tbody tr').filter({ hasText: 'saved a content file of' }).first();
  await newest.getByRole('button', { name: /^Show entry/ }).click();
  await dialog(page).getByRole('button', { name: 'Restore' }).click();

  const panel = dialog(page).getByTestId('restore-panel');
  const row = panel.getByTestId('restore-row');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('/index.html');
  await expect(row).toContainText('Will change');
  await expect(row).toContainText('Put back');
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 800 });
    await page.screenshot({ path: info.outputPath(`content-restore-${width}.png`) });
  }
  await panel.getByRole('button', { name: 'Restore 1 path' }).click();
  await expect(panel.getByTestId('restore-result')).toContainText('Restored 1 path.');
  await expect(row).toContainText('Already matches');
  await expect(panel.getByRole('button', { name: 'Nothing to restore' })).toBeDisabled();
  expect(await readBack(request, token, domain._id, '/index.html')).toBe('<h1>Before</h1>');

  // The first save created the file, and it holds what that save wrote again: its Restore would remove it.
  await page.keyboard.press('Escape');
  await expect(dialog(page)).toHaveCount(0);
  await page.reload();
  const oldest = page.locator('table tbody tr').filter({ hasText: 'saved a content file of' }).last();
  await oldest.getByRole('button', { name: /^Show entry/ }).click();
  await dialog(page).getByRole('button', { name: 'Restore' }).click();
  await expect(dialog(page).getByTestId('restore-row')).toContainText('Will change');
  await expect(dialog(page).getByTestId('restore-row')).toContainText('Remove (the change added it)');

  await apiDelete(request, token, 'domains', domain._id);
});
