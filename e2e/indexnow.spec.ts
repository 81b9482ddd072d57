import { apiCall, apiToken, expect, expectToast, signIn, test, uniqueName } from './fixtures.ts';

/**
 * IndexNow (issue 46, decision 075): the brand form's switch, and the demo's submissions shown where the jobs are:
 * coffee-mirror.net (brand Aurora Media, IndexNow on) submits its pages after its first parse, and Generate Sitemap
 * shows its own submission under its result.
 */
type JobRow = { _id: string; kind: string; state: string; summary: string };

test('a brand turns IndexNow on from its form', async ({ page, request }) => {
  const token = await apiToken(request);
  const name = uniqueName('E2E IndexNow');
  await signIn(page);
  await page.goto('/brands/create');
  await page.getByLabel('Name').fill(name);
  const indexNow = page.getByLabel('IndexNow');
  await expect(indexNow).not.toBeChecked();
  await indexNow.check();
  await page.getByRole('button', { name: 'Create' }).click();
  await expectToast(page, 'Brand created successfully');
  await expect(page).toHaveURL(/\/brands\/[0-9a-f-]{36}$/);
  const id = page.url().split('/').pop()!;
  expect((await apiCall<{ indexNow: boolean }>(request, token, 'GET', `/api/brands/${id}`)).indexNow).toBe(true);
  await page.reload();
  await expect(page.getByLabel('IndexNow')).toBeChecked();
  await page.getByLabel('IndexNow').uncheck();
  await page.getByRole('button', { name: 'Save' }).click();
  await expectToast(page, 'Brand saved successfully');
  expect((await apiCall<{ indexNow: boolean }>(request, token, 'GET', `/api/brands/${id}`)).indexNow).toBe(false);
});

test("the demo's submissions show on the Jobs screen and under Generate Sitemap's result", async ({
  page,
  request,
}) => {
  const token = await apiToken(request);
  const found = await apiCall<{ items: { _id: string; domainName: string }[] }>(
    request,
    token,
    'GET',
    '/api/domains?search=coffee-mirror.net',
  );
  const domain = found.items.find((d) => d.domainName === 'coffee-mirror.net')!;
  expect(domain, 'the parsed demo mirror').toBeTruthy();
  // The demo queues its first parse at start; its result ends with the submission.
  const parse = async () =>
    (await apiCall<{ items: JobRow[] }>(request, token, 'GET', `/api/jobs?domainId=${domain._id}`)).items.find(
      (j) => j.kind === 'domains.parsing',
    );
  await expect.poll(async () => (await parse())?.state, { timeout: 60_000 }).toMatch(/^completed/);
  const summary = (await parse())!.summary;
  expect(summary).toMatch(/ · IndexNow: \d+ URLs submitted \(200 received\)$/);

  await signIn(page);
  await page.goto(`/jobs?domainId=${domain._id}`);
  await expect(page.getByText(summary.replace(/: see the plan$/, ''))).toBeVisible();

  await page.goto(`/domains/${domain._id}/generate-sitemap`);
  await page.getByRole('button', { name: 'Generate Sitemap' }).click();
  const card = page.getByTestId('job-card');
  await expect(card).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });
  await expect(card.getByTestId('indexnow-line')).toHaveText(/^IndexNow: \d+ URLs? submitted \(200 received\)$/);
});
