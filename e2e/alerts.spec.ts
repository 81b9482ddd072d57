import { apiToken, expect, signIn, test, uniqueName } from './fixtures.ts';

/**
 * Alerts in the browser: make an email channel to the demo's SMTP catcher and send its test message, make a rule,
 * then empty a demo site's content directory (its health check fails), see the alert arrive in the demo inbox,
 * put the page back and see the resolution arrive too.
 */
test('a channel, its test message, a rule, a site failing and resolved, both in the demo inbox', async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const token = await apiToken(request);
  const headers = { Authorization: token };
  // The demo's catcher listens on a port chosen at start; its seeded channel knows it.
  const channels = (await (await request.get('/api/notification-channels', { headers })).json()) as {
    data: { items: { name: string; smtpPort: number | null }[] };
  };
  const catcherPort = channels.data.items.find((c) => c.name === 'Demo inbox (email)')?.smtpPort;
  expect(catcherPort, 'the demo inbox channel').toBeTruthy();
  const found = await request.get('/api/domains?search=health-ok.example', { headers });
  const domain = ((await found.json()) as { data: { items: { _id: string; domainName: string }[] } }).data.items.find(
    (d) => d.domainName === 'health-ok.example',
  );
  expect(domain, 'the demo domain').toBeTruthy();

  await signIn(page);
  await page.getByRole('button', { name: 'Open menu' }).click();
  await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Alerts' }).click();
  await expect(page.getByRole('heading', { name: 'Alerts' })).toBeVisible();
  await page.getByRole('link', { name: 'Channels' }).click();
  await page.getByRole('link', { name: 'Create Channel' }).click();
  const channelName = uniqueName('E2E mail');
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill(channelName);
  await page.getByLabel('Kind', { exact: true }).selectOption('email');
  await page.getByLabel('SMTP host', { exact: true }).fill('127.0.0.1');
  await page.getByLabel('Port', { exact: true }).fill(String(catcherPort));
  await page.getByLabel('Security', { exact: true }).selectOption('none');
  await page.getByLabel('From', { exact: true }).fill('e2e@fleetdesk.local');
  await page.getByLabel('To', { exact: true }).fill('oncall@fleetdesk.local');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page).toHaveURL(/\/notification-channels\/[0-9a-f-]{36}$/);
  await page.getByRole('button', { name: 'Send Test Message' }).click();
  await expect(page.getByTestId('channel-test-result')).toContainText('Sent. The provider answered: 250');

  await page.goto('/alert-rules/create');
  const ruleName = uniqueName('E2E rule');
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill(ruleName);
  await page.getByLabel('Minutes failing').fill('0');
  // Only the domain this test breaks: other demo domains failing at the same moment would make one summary mail.
  await page.getByLabel('Domains', { exact: true }).selectOption('filter');
  await page.getByLabel('Domains list filter').fill('/domains?search=health-ok.example');
  await page.getByLabel(new RegExp(`^${channelName}`)).check();
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page).toHaveURL(/\/alert-rules\/[0-9a-f-]{36}$/);

  // The site's only page goes: its content directory is empty, so its health check fails.
  const base = `/api/domains/${domain!._id}/content-files`;
  const removed = await request.delete(`${base}/remove`, { headers, data: { path: 'index.html' } });
  expect(removed.status(), await removed.text()).toBe(200);
  expect((await request.post(`/api/domains/${domain!._id}/health/check`, { headers })).status()).toBe(200);

  await page.goto('/alerts?tab=inbox');
  const opened = page.getByTestId('inbox-mail').filter({ hasText: 'Content directory failing on health-ok.example' });
  await expect(opened.first()).toBeVisible({ timeout: 60_000 });

  const restored = await request.put(`${base}/file-content?path=index.html`, {
    headers: { ...headers, 'content-type': 'text/plain' },
    data: '<!doctype html><title>health-ok.example</title><h1>back</h1>\n',
  });
  expect(restored.status(), await restored.text()).toBe(200);
  expect((await request.post(`/api/domains/${domain!._id}/health/check`, { headers })).status()).toBe(200);
  const resolved = page
    .getByTestId('inbox-mail')
    .filter({ hasText: 'RESOLVED: Content directory failing on health-ok.example' });
  await expect(resolved.first()).toBeVisible({ timeout: 60_000 });

  await page.getByRole('tab', { name: 'Problems' }).click();
  // Open problems come first (the demo has many); the resolved one is among the recent ones.
  await page.getByLabel('Which problems').selectOption('recent');
  await expect(
    page.getByTestId('alert-row').filter({ hasText: 'Content directory failing on health-ok.example' }).first(),
  ).toContainText('resolved');
  await page.getByRole('tab', { name: 'Delivery log' }).click();
  await expect(page.getByTestId('delivery-row').filter({ hasText: channelName }).first()).toBeVisible();
});
