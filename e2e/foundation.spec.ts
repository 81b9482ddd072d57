import {
  apiCreate,
  apiDelete,
  apiToken,
  dialog,
  expect,
  expectToast,
  signIn,
  tableRows,
  test,
  toast,
  uniqueName,
} from './fixtures.ts';

const MENU = [
  'Home',
  'Users',
  'Roles',
  'Sessions',
  'Domains',
  'Fleet',
  'Imports',
  'Launches',
  'Clouds',
  'Proxies',
  'Servers',
  'Brands',
  'Regions',
  'Firewall Rules',
  'DNS Templates',
  'Launch Profiles',
  'Domain Registrators',
  'Yandex Webmaster',
  // Issue 46 adds Google beside Yandex (the spec's menu has no Google entry; its place follows Yandex's).
  'Google Search Console',
  'Audit Log',
  'Jobs',
  'Alerts',
  'Profile',
  'Logout',
];

const DEMO_BANNER = 'Demo mode: sample data and simulated providers. Log in as admin / admin.';

test.describe('shell', () => {
  test('guards routes, signs in, shows the menu and signs out', async ({ page }) => {
    await page.goto('/brands');
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByText(DEMO_BANNER)).toBeVisible();
    await expect(page.getByRole('link', { name: 'Login' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Open menu' })).toHaveCount(0);

    // Both fields are required by the browser: an empty submit goes nowhere.
    await page.getByRole('button', { name: 'Login' }).click();
    await expect(page).toHaveURL(/\/login$/);
    expect(await page.getByLabel('Username').evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(
      true,
    );

    await signIn(page);
    await expect(page.getByText(DEMO_BANNER)).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem('fleetdesk.token'))).toMatch(/^Bearer [0-9a-f]+$/);
    const header = page.getByRole('navigation').first();
    await expect(header.getByRole('link', { name: 'Fleetdesk' })).toBeVisible();
    await expect(header.getByRole('link', { name: 'Logout' })).toBeVisible();

    // The starting page links to every section.
    for (const label of MENU.slice(1, -2)) {
      await expect(page.getByRole('main').getByRole('link', { name: label, exact: true })).toBeVisible();
    }

    await page.getByRole('button', { name: 'Open menu' }).click();
    const menu = page.getByRole('navigation', { name: 'Main menu' });
    await expect(menu).toBeVisible();
    await expect(menu.getByRole('link')).toHaveText(MENU);
    await expect(menu.getByRole('link', { name: 'Clouds' })).toHaveAttribute('href', '/clouds');
    await expect(menu.getByRole('link', { name: 'Firewall Rules' })).toHaveAttribute('href', '/firewall-rules');
    await expect(menu.getByRole('link', { name: 'Domain Registrators' })).toHaveAttribute(
      'href',
      '/domain-registrators',
    );
    await expect(menu.getByRole('link', { name: 'Yandex Webmaster' })).toHaveAttribute('href', '/yandex-webmaster');
    await expect(menu.getByRole('link', { name: 'Audit Log' })).toHaveAttribute('href', '/audit-log');

    // Any route change closes the menu.
    await menu.getByRole('link', { name: 'Regions' }).click();
    await expect(page).toHaveURL(/\/regions$/);
    await expect(menu).toBeHidden();
    await expect(page.getByRole('heading', { name: 'Regions' })).toBeVisible();

    // Routes no feature has claimed yet.
    await page.goto('/no-such-page');
    await expect(page.getByRole('heading', { name: 'Not found' })).toBeVisible();

    await page.getByRole('link', { name: 'Logout' }).click();
    await expect(page).toHaveURL(/\/logout$/);
    await page.getByRole('button', { name: 'Logout' }).click();
    await expect(page).toHaveURL(/\/login$/);
    expect(await page.evaluate(() => localStorage.getItem('fleetdesk.token'))).toBeNull();
    await expect(page.getByRole('button', { name: 'Open menu' })).toHaveCount(0);
    await expect(page.getByRole('navigation', { name: 'Main menu' })).toHaveCount(0);
    await expect(page.getByRole('link', { name: 'Login' })).toBeVisible();

    await page.goto('/regions');
    await expect(page).toHaveURL(/\/login$/);
  });

  test('shows the server message when sign-in fails', async ({ page, consoleGuard }) => {
    consoleGuard.allow(/status of 401/);
    await page.goto('/login');
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Login' }).click();
    const error = page.getByRole('dialog', { name: 'Error' });
    await expect(error.getByRole('heading', { name: 'Error' })).toBeVisible();
    await expect(error).toContainText('Invalid username or password');
    await error.getByRole('button', { name: 'OK' }).click();
    await expect(error).toBeHidden();
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByRole('button', { name: 'Login' })).toBeEnabled();
  });

  test('a rejected token ends the session', async ({ page, consoleGuard }) => {
    consoleGuard.allow(/status of 401/);
    await page.goto('/login');
    await page.evaluate(() => localStorage.setItem('fleetdesk.token', 'Bearer 00'));
    await page.goto('/regions');
    await expect(page).toHaveURL(/\/login$/);
    expect(await page.evaluate(() => localStorage.getItem('fleetdesk.token'))).toBeNull();
    await expect(dialog(page)).toHaveCount(0);
  });
});

for (const { entity, resource } of [
  { entity: 'Region', resource: 'regions' },
  { entity: 'Brand', resource: 'brands' },
]) {
  const lower = entity.toLowerCase();

  test(`creates, edits, finds and deletes a ${lower}`, async ({ page, request, consoleGuard }) => {
    consoleGuard.allow(/status of 409/);
    const token = await apiToken(request);
    const taken = await apiCreate<{ _id: string; name: string }>(request, token, resource, {
      name: uniqueName(`Taken ${entity}`),
    });
    const name = uniqueName(`E2E ${entity}`);
    const renamed = `${name} renamed`;

    await signIn(page);
    await page.goto(`/${resource}`);
    await expect(page.getByRole('heading', { name: `${entity}s` })).toBeVisible();
    await expect(page.getByRole('columnheader')).toHaveText(['#', '№', 'Name']);
    await page.getByRole('link', { name: `Create ${entity}` }).click();
    await expect(page).toHaveURL(new RegExp(`/${resource}/create$`));
    await expect(page.getByRole('heading', { name: `Create ${entity}` })).toBeVisible();

    // Client-side validation from the contract's schema.
    await page.getByRole('button', { name: 'Create' }).click();
    await expect(page.getByText('Name is required')).toBeVisible();

    // A duplicate name: the server's field error lands on the input, no dialog.
    await page.getByLabel('Name').fill(taken.name);
    await page.getByRole('button', { name: 'Create' }).click();
    await expect(page.getByText(`A ${lower} with this name already exists`)).toBeVisible();
    await expect(page.getByLabel('Name')).toHaveClass(/is-invalid/);
    await expect(dialog(page)).toHaveCount(0);

    await page.getByLabel('Name').fill(name);
    await page.getByRole('button', { name: 'Create' }).click();
    await expectToast(page, `${entity} created successfully`);
    await expect(page).toHaveURL(new RegExp(`/${resource}/[0-9a-f-]{36}$`));
    const editUrl = page.url();
    await expect(page.getByRole('heading', { name: `Edit ${entity}` })).toBeVisible();
    await expect(page.getByLabel('Name')).toHaveValue(name);

    await page.getByLabel('Name').fill(renamed);
    await page.getByRole('button', { name: 'Save' }).click();
    await expectToast(page, `${entity} saved successfully`);
    await expect(page).toHaveURL(editUrl);

    await page.reload();
    await expect(page.getByLabel('Name')).toHaveValue(renamed);

    // Find it by search; the row leads back to its edit page.
    await page.getByRole('link', { name: 'Back to list' }).click();
    await expect(page).toHaveURL(new RegExp(`/${resource}$`));
    await page.getByRole('searchbox', { name: 'Search' }).fill(renamed);
    await expect(page).toHaveURL(/search=/);
    await expect(tableRows(page)).toHaveCount(1);
    await expect(tableRows(page).first()).toContainText(renamed);
    await tableRows(page).first().getByText(renamed).click();
    await expect(page).toHaveURL(editUrl);

    // Delete: Cancel goes back to the edit page without deleting.
    await page.getByRole('link', { name: `Delete ${entity}` }).click();
    await expect(page).toHaveURL(`${editUrl}/delete`);
    const confirm = dialog(page);
    await expect(confirm).toContainText(`Are you sure you want to delete this ${lower}?`);
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect(page).toHaveURL(editUrl);
    await expect(page.getByLabel('Name')).toHaveValue(renamed);

    await page.getByRole('link', { name: `Delete ${entity}` }).click();
    await expect(dialog(page)).toContainText(`Are you sure you want to delete this ${lower}?`);
    await dialog(page).getByRole('button', { name: 'Confirm' }).click();
    await expectToast(page, `${entity} deleted successfully`);
    await expect(page).toHaveURL(new RegExp(`/${resource}$`));

    await page.getByRole('searchbox', { name: 'Search' }).fill(renamed);
    await expect(page.getByTestId('empty-state')).toContainText(`match "${renamed}"`);

    await apiDelete(request, token, resource, taken._id);
  });
}

test('brands show In Use only when an in-use check is requested', async ({ page }) => {
  await signIn(page);
  await page.goto('/brands?checkInUseCloudId=00000000-0000-4000-8000-000000000000');
  await expect(page.getByRole('columnheader')).toHaveText(['#', '№', 'Name', 'In Use']);
  await page.goto('/brands');
  await expect(page.getByRole('columnheader')).toHaveText(['#', '№', 'Name']);
});

test.describe('paging', () => {
  const prefix = uniqueName('Paging');
  const ids: string[] = [];
  let token = '';

  test.beforeAll(async ({ request }) => {
    token = await apiToken(request);
    for (let i = 1; i <= 205; i++) {
      const region = await apiCreate(request, token, 'regions', { name: `${prefix} ${String(i).padStart(3, '0')}` });
      ids.push(region._id);
    }
  });

  test.afterAll(async ({ request }) => {
    for (const id of ids) await apiDelete(request, token, 'regions', id);
  });

  test('pages through a list with numbering, << >> and the go-to box', async ({ page }) => {
    await signIn(page);
    await page.goto('/regions');
    await page.getByRole('searchbox', { name: 'Search' }).fill(prefix);
    await expect(page.getByText('Total: 205')).toBeVisible();
    const pager = page.getByRole('navigation', { name: 'Pages' });
    await expect(tableRows(page)).toHaveCount(20);
    await expect(tableRows(page).first().locator('td').first()).toHaveText('1');

    // 11 pages: ten numbers shown, and the go-to box.
    await expect(pager.locator('.page-item')).toHaveCount(12);
    await expect(pager.locator('.page-item.active')).toContainText('1');
    const goTo = pager.getByRole('spinbutton', { name: 'Go to page' });
    await expect(goTo).toBeVisible();

    await pager.getByText('2', { exact: true }).click();
    await expect(page).toHaveURL(/page=2/);
    await expect(tableRows(page).first().locator('td').first()).toHaveText('21');
    await expect(tableRows(page).last().locator('td').first()).toHaveText('40');

    await pager.getByText('>>').click();
    await expect(page).toHaveURL(/page=11/);
    await expect(tableRows(page)).toHaveCount(5);
    await expect(tableRows(page).first().locator('td').first()).toHaveText('201');
    await expect(pager.locator('.page-item.active')).toContainText('11');

    await pager.getByText('<<').click();
    await expect(page).not.toHaveURL(/page=/);
    await expect(tableRows(page).first().locator('td').first()).toHaveText('1');

    // Only numbers above 0 act; past the end means the last page.
    await goTo.fill('0');
    await pager.getByRole('button', { name: 'Go' }).click();
    await expect(page).not.toHaveURL(/page=/);
    await goTo.fill('5');
    await pager.getByRole('button', { name: 'Go' }).click();
    await expect(page).toHaveURL(/page=5/);
    await expect(tableRows(page).first().locator('td').first()).toHaveText('81');
    await goTo.fill('99');
    await goTo.press('Enter');
    await expect(page).toHaveURL(/page=11/);

    // A new search starts at page 1.
    await page.getByRole('searchbox', { name: 'Search' }).fill(`${prefix} 01`);
    await expect(page).not.toHaveURL(/page=/);
    await expect(page.getByText('Total: 10')).toBeVisible();
    await expect(pager).toHaveCount(0);
  });

  test('a list load failure shows the error box with Refresh', async ({ page, consoleGuard }) => {
    consoleGuard.allow(/Failed to load resource/);
    await signIn(page);
    await page.route('**/api/regions?**', (route) => route.abort());
    await page.goto('/regions');
    await expect(page.getByText('Failed to load data')).toBeVisible();
    await page.unroute('**/api/regions?**');
    await page.locator('.alert').getByRole('button', { name: 'Refresh' }).click();
    await expect(page.getByText('Failed to load data')).toBeHidden();
    await expect(tableRows(page).first()).toBeVisible();
    await expect(toast(page, 'Success')).toHaveCount(0);
  });
});
