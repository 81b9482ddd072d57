import { ADMIN, apiCreate, apiToken, dialog, expect, signIn, tableRows, test } from './fixtures.ts';

/**
 * Launch a site in the demo with its ready profile: the live plan, Launch, the timeline stopping before the
 * registration until it is confirmed, waiting for the zone, then every stage done; then the new domain's tabs.
 */
test('launches a new domain with the demo profile and watches the timeline to the end', async ({ page }) => {
  test.setTimeout(240_000);
  await signIn(page);
  // From the header's create menu.
  await page.getByRole('button', { name: 'New', exact: true }).click();
  await page.getByRole('menuitem', { name: 'Launch a site' }).click();
  await expect(page).toHaveURL(/\/launches\/new$/);
  await expect(page.getByRole('heading', { name: 'Launch a site' })).toBeVisible();
  await expect(page.getByLabel('Launch profile')).toHaveValue(/[0-9a-f-]{36}/);
  await expect(page.getByLabel('Launch profile').locator('option:checked')).toHaveText('Demo launch');

  const name = `e2e-launch-${Date.now().toString(36)}.com`;
  await page.getByLabel('Domain name').fill(name);
  // The live plan: every stage with what it will do; the registration asks first.
  const plan = page.getByRole('region', { name: 'Plan' });
  await expect(plan.getByTestId('plan-register')).toContainText('Asks you first');
  await expect(plan.getByTestId('plan-dns')).toContainText(`A ${name} → 127.0.0.1`);
  await expect(plan.getByTestId('plan-content')).toContainText('Copy the files of');
  await expect(plan.getByText('Blocked', { exact: true })).toHaveCount(0);
  await page.getByRole('button', { name: 'Launch', exact: true }).click();

  await expect(page.getByRole('heading', { name: new RegExp(`^Launch #\\d+: ${name}$`) })).toBeVisible();
  const register = page.getByTestId('stage-register');
  await expect(register).toContainText('Needs confirmation', { timeout: 60_000 });
  await expect(register).toContainText('costs money');
  // The price as Namecheap's getPricing reads it, on the stage and in the dialog, before anything is bought.
  await expect(page.getByTestId('launch-confirmation')).toHaveText("Cost: 10.87 USD at Namecheap's price");
  await register.getByRole('button', { name: 'Confirm and go on' }).click();
  await expect(dialog(page)).toContainText(`Register ${name} for 1 year: 10.87 USD at Namecheap's price.`);
  await dialog(page).getByRole('button', { name: 'Confirm' }).click();

  // The zone waits for the registrar's name servers (the demo activates it once they point at Cloudflare).
  await expect(page.getByText(`${name} is live: every stage is done.`)).toBeVisible({ timeout: 180_000 });
  for (const key of ['domain', 'register', 'zone', 'name-servers', 'dns', 'site', 'content'])
    await expect(page.getByTestId(`stage-${key}`)).toContainText('Done');
  // The demo turns a zone active within seconds of the name servers: the wait may find it so ("Already done").
  await expect(page.getByTestId('stage-zone-active')).toContainText(/Done|Already done/);
  await expect(page.getByTestId('stage-yandex-verify')).toContainText(/Verified https:\/\//);
  await expect(page.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '100');
  // The demo's profile names no Google account: its two stages are skipped, saying so (decision 081).
  for (const key of ['google-verify', 'google-sitemap'])
    await expect(page.getByTestId(`stage-${key}`)).toContainText('No Google account chosen');
  await expect(page.getByTestId('launch-progress')).toHaveText('16 of 16');

  // What it made, from the timeline's links: the zone, the panel's site, the files, the Yandex host.
  await page.getByTestId('stage-zone').getByRole('link', { name: 'Cloudflare zone' }).click();
  await expect(page.getByRole('tab', { name: 'Cloud', selected: true })).toBeVisible();
  await expect(page.locator('.badge').filter({ hasText: /^active$/ })).toBeVisible();
  await page.goBack();
  await page.getByTestId('stage-site').getByRole('link', { name: 'DirectAdmin site' }).click();
  await expect(page.getByRole('tab', { name: 'Direct Admin', selected: true })).toBeVisible();
  await expect(page.getByTestId('direct-admin-state')).toHaveText('The domain is created on Direct Admin.');
  await page.goBack();
  await page.getByTestId('stage-content').getByRole('link', { name: 'Content files' }).click();
  await expect(page.getByRole('button', { name: 'index.html', exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'sitemap.xml', exact: true })).toBeVisible();
  await page.goBack();
  await page.getByTestId('stage-yandex-verify').getByRole('link', { name: 'Yandex Webmaster host' }).click();
  await expect(page.getByRole('tab', { name: 'Yandex Webmaster', selected: true })).toBeVisible();
  const host = page.getByTestId('domain-webmaster-host');
  await expect(host).toContainText(`https://${name}/`);
  await expect(host.locator('.badge')).toHaveText('Verified');
});

/**
 * The header's create menu on a phone, by keyboard: it opens on Enter, the arrows move, Escape closes it and gives
 * the focus back; it offers only what the user may create; Space opens it again and Enter on an item goes there.
 */
test("the header's create menu works by keyboard at 390 px and offers what the user may create", async ({
  page,
  request,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  // A user holding only the servers' and users' rules: two items, no launching.
  const admin = await apiToken(request, ADMIN);
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}`;
  const role = await apiCreate(request, admin, 'roles', {
    name: `e2e create menu ${suffix}`,
    rules: ['cnv:servers', 'cnv:users'],
  });
  const user = { username: `create-menu-${suffix}`, password: 'a long e2e password' };
  await apiCreate(request, admin, 'users', {
    ...user,
    name: `Create menu ${suffix}`,
    email: `${user.username}@example.test`,
    status: 'active',
    roles: [role._id],
  });
  await signIn(page, user);

  const button = page.getByRole('button', { name: 'New', exact: true });
  await expect(button).toBeVisible();
  await expect(button).toHaveAttribute('aria-haspopup', 'menu');
  await expect(button).toHaveAttribute('aria-expanded', 'false');
  // Inside the phone's width.
  const box = (await button.boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(390);

  await button.focus();
  await page.keyboard.press('Enter');
  await expect(button).toHaveAttribute('aria-expanded', 'true');
  const menu = page.getByRole('menu');
  await expect(menu.getByRole('menuitem')).toHaveText(['Create Server', 'Create User']);
  const menuBox = (await menu.boundingBox())!;
  expect(menuBox.x).toBeGreaterThanOrEqual(0);
  expect(menuBox.x + menuBox.width).toBeLessThanOrEqual(390);
  await expect(menu.getByRole('menuitem', { name: 'Create Server' })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(menu.getByRole('menuitem', { name: 'Create User' })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(menu.getByRole('menuitem', { name: 'Create Server' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(menu).toHaveCount(0);
  await expect(button).toBeFocused();
  await expect(button).toHaveAttribute('aria-expanded', 'false');

  await page.keyboard.press('Space');
  await expect(menu).toBeVisible();
  await page.keyboard.press('ArrowUp');
  await expect(menu.getByRole('menuitem', { name: 'Create User' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/users\/create$/);
  await expect(menu).toHaveCount(0);

  // A click outside closes it too.
  await button.click();
  await expect(menu).toBeVisible();
  await page.locator('main').click({ position: { x: 5, y: 5 } });
  await expect(menu).toHaveCount(0);
});

/** A look-alike name (Cyrillic "а") is taken, but the launch and domain forms say so under the field. */
test('shows a look-alike name in Unicode and ASCII with a warning, at 1280 and 390 px', async ({ page }, info) => {
  await signIn(page);
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto('/launches/new');
    await page.getByLabel('Domain name').fill('\u0430pple-test.com');
    await expect(page.getByText('ASCII: xn--pple-test-zyh.com')).toBeVisible();
    await expect(page.getByRole('status').filter({ hasText: 'Look-alike name:' })).toContainText(
      'mixes Latin and Cyrillic letters',
    );
    await page.screenshot({ path: info.outputPath(`launch-look-alike-${width}.png`) });
    await page.goto('/domains/create');
    await page.getByLabel('Domain Name').fill('paypa\u04cf-test.com');
    await expect(page.getByText('ASCII: xn--paypa-test-25j.com')).toBeVisible();
    await expect(page.getByRole('status').filter({ hasText: 'Look-alike name:' })).toBeVisible();
    await page.screenshot({ path: info.outputPath(`domain-look-alike-${width}.png`) });
    // A name in one script shows its two forms and no warning.
    await page.getByLabel('Domain Name').fill('bücher-e2e.de');
    await expect(page.getByText('ASCII: xn--bcher-e2e-q9a.de')).toBeVisible();
    await expect(page.getByText('Look-alike name:')).toHaveCount(0);
  }
});

/**
 * Launch many with "Confirm the registrations" unticked: the batch stops with its launches waiting, reads
 * "Waiting for confirmation (2)" (never a green Completed with a full bar), and Confirm all says what it buys first,
 * with the total at Namecheap's price.
 */
test('a batch waiting for its registrations reads so, and Confirm all shows the total cost, then goes on', async ({
  page,
}, info) => {
  test.setTimeout(300_000);
  await signIn(page);
  await page.goto('/launches/batches/new');
  await expect(page.getByLabel('Launch profile')).toHaveValue(/[0-9a-f-]{36}/);
  const tag = Date.now().toString(36);
  const names = [`e2e-batch-${tag}-a.com`, `e2e-batch-${tag}-b.com`];
  await page.getByLabel('Names, one per line').fill(names.join('\n'));
  await expect(page.getByLabel(/^Confirm the registrations now/)).not.toBeChecked();
  await page.getByRole('button', { name: 'Plan', exact: true }).click();
  await expect(page.getByRole('heading', { name: /^Launch batch #\d+$/ })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Run', exact: true })).toBeVisible({ timeout: 60_000 });
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await dialog(page).getByRole('button', { name: 'Confirm' }).click();

  await expect(page.getByText('Waiting for confirmation (2)', { exact: true })).toBeVisible({ timeout: 120_000 });
  await expect(page.getByRole('progressbar')).not.toHaveAttribute('aria-valuenow', '100');
  const rows = tableRows(page);
  for (const name of names)
    await expect(rows.filter({ hasText: name })).toContainText(/Waiting for confirmation: Registering .+ costs money/);

  // The total cost at Namecheap's price (getPricing, .com at 10.87 a year in the demo), shown before the click.
  const total = "Register 2 names for 1 year each: 2 name-years in all, 21.74 USD in all at Namecheap's price.";
  await expect(page.getByTestId('batch-confirmation')).toContainText(total);
  await page.screenshot({ path: info.outputPath('batch-confirm-all-1280.png'), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByTestId('batch-confirmation')).toContainText(total);
  await page.screenshot({ path: info.outputPath('batch-confirm-all-390.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.getByRole('button', { name: 'Confirm all (2)' }).click();
  await expect(dialog(page)).toContainText(total);
  await dialog(page).getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByText('Completed', { exact: true })).toBeVisible({ timeout: 240_000 });
  await expect(page.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '100');
  for (const name of names) await expect(rows.filter({ hasText: name })).toContainText('Live');
});
