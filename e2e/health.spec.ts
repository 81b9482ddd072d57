import { apiToken, expect, signIn, test } from './fixtures.ts';

/**
 * Fleet health in the browser: the demo's fleetdesk-demo.com had its SSL mode set to Full through the console,
 * then changed to Flexible in the Cloudflare simulator behind the console's back. Filter the domains list to
 * failing, open the domain, read observed and expected on its Health tab, Fix, and see the check turn OK.
 */
test('filter to failing, open one, read observed and expected, Fix, see it OK', async ({ page, request }) => {
  const token = await apiToken(request);
  const headers = { Authorization: token };
  const found = await request.get('/api/domains?search=fleetdesk-demo.com', { headers });
  const domain = ((await found.json()) as { data: { items: { _id: string; domainName: string }[] } }).data.items.find(
    (d) => d.domainName === 'fleetdesk-demo.com',
  );
  expect(domain, 'the demo domain').toBeTruthy();
  // The periodic run checks it soon after start; checking it now keeps the test from waiting for that run.
  const checked = await request.post(`/api/domains/${domain!._id}/health/check`, { headers });
  expect(checked.status(), await checked.text()).toBe(200);

  await signIn(page);
  await page.goto('/domains');
  await page.getByLabel('Health', { exact: true }).selectOption('failing');
  await expect(page).toHaveURL(/health=failing/);
  const link = page.getByRole('link', { name: 'fleetdesk-demo.com', exact: true });
  await expect(link).toBeVisible();
  const row = page.getByRole('row').filter({ has: link });
  await expect(row.locator('[data-health="failing"]')).toBeVisible();
  await link.click();

  await page.getByRole('tab', { name: 'Health' }).click();
  const ssl = page.getByTestId('health-cf_ssl');
  await expect(ssl).toHaveAttribute('data-state', 'failing');
  await expect(ssl.getByTestId('observed')).toHaveText('flexible');
  await expect(ssl.getByTestId('expected')).toHaveText('full');
  await ssl.getByRole('button', { name: 'Fix', exact: true }).click();
  await expect(ssl).toHaveAttribute('data-state', 'ok');
  await expect(ssl.getByTestId('observed')).toHaveText('full');
  await expect(page.getByText(/SSL mode is now OK/)).toBeVisible();
});
