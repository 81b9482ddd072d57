import {
  apiCall,
  apiCreate,
  apiDelete,
  apiToken,
  dialog,
  expect,
  expectToast,
  signIn,
  tableRows,
  test,
  uniqueName,
} from './fixtures.ts';

const idFrom = (url: string) => /\/([0-9a-f-]{36})(?:\/|\?|$)/.exec(url)?.[1] ?? '';

async function signOut(page: import('@playwright/test').Page) {
  await page.goto('/logout');
  await page.getByRole('button', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/login$/);
}

test('people and catalogues: roles, users, forbidden areas, firewall rules, registrators, contacts, history', async ({
  page,
  request,
  consoleGuard,
}) => {
  // The signed-in user's forbidden areas answer 403, which the browser logs.
  consoleGuard.allow(/status of 403/);
  const roleName = uniqueName('E2E Editors');
  const username = `e2e${Date.now().toString(36)}`;
  const password = 'e2e password 123';

  await signIn(page);

  // A role with two rules.
  await page.goto('/roles');
  await expect(page.getByRole('heading', { name: 'Roles' })).toBeVisible();
  await expect(page.getByRole('columnheader')).toHaveText(['#', '№', 'Name', 'Rules']);
  await page.getByRole('link', { name: 'Create Role' }).click();
  await expect(page.getByRole('heading', { name: 'Create Role' })).toBeVisible();
  await page.getByLabel('Name').fill(roleName);
  await page.getByLabel('Brands').check();
  await page.getByLabel('Regions').check();
  await page.getByRole('button', { name: 'Create' }).click();
  await expectToast(page, 'Role created successfully');
  await expect(page).toHaveURL(/\/roles\/[0-9a-f-]{36}$/);
  const roleId = idFrom(page.url());
  await page.getByRole('link', { name: 'Back to list' }).click();
  await page.getByRole('searchbox', { name: 'Search' }).fill(roleName);
  await expect(tableRows(page)).toHaveCount(1);
  await expect(tableRows(page).first()).toContainText('Brands, Regions');

  // A user with that role; the password rule is checked on the form.
  await page.goto('/users/create');
  await expect(page.getByRole('heading', { name: 'Create User' })).toBeVisible();
  await page.getByLabel('Username').fill(username);
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill('E2E Person');
  await page.getByLabel('Email').fill(`${username}@example.com`);
  await page.getByLabel('Password').fill('short');
  await page.getByRole('button', { name: 'Add Role' }).click();
  const picker = page.getByRole('dialog', { name: 'Select a role' });
  await picker.getByRole('searchbox', { name: 'Search' }).fill(roleName);
  await expect(tableRows(picker)).toHaveCount(1);
  await tableRows(picker).first().click();
  await expect(picker).toBeHidden();
  // Picking the same role again keeps it once.
  await page.getByRole('button', { name: 'Add Role' }).click();
  await picker.getByRole('searchbox', { name: 'Search' }).fill(roleName);
  await expect(tableRows(picker)).toHaveCount(1);
  await tableRows(picker).first().click();
  await expect(page.getByRole('button', { name: /^Remove role / })).toHaveCount(1);
  await expect(page.getByRole('button', { name: `Remove role ${roleName}` })).toHaveCount(1);
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('Password must be at least 10 characters')).toBeVisible();
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create' }).click();
  await expectToast(page, 'User created successfully');
  await expect(page).toHaveURL(/\/users\/[0-9a-f-]{36}$/);
  const userId = idFrom(page.url());
  await expect(page.getByRole('heading', { name: 'Edit User' })).toBeVisible();
  await expect(page.getByLabel('Password')).toHaveValue('');

  // Signed in as that user: their areas work, the others answer with the Error dialog.
  await signOut(page);
  await signIn(page, { username, password });
  await page.goto('/brands');
  await expect(page.getByRole('heading', { name: 'Brands' })).toBeVisible();
  await expect(dialog(page)).toHaveCount(0);
  for (const [path, rule] of [
    ['/users', 'cnv:users'],
    ['/roles', 'cnv:roles'],
    ['/firewall-rules', 'cnv:firewallRules'],
    ['/domain-registrators', 'cnv:domainRegistrators'],
    ['/audit-log', 'cnv'],
  ] as const) {
    await page.goto(path);
    const error = page.getByRole('dialog', { name: 'Error' });
    await expect(error).toContainText(`You do not have permission for this area (${rule})`);
    await error.getByRole('button', { name: 'OK' }).click();
    await expect(error).toBeHidden();
    // The second document's lists show the server's message in the box (its fallback is "Failed to fetch
    // data"); the audit log keeps the first document's "Failed to load data".
    await expect(page.locator('.alert-danger')).toContainText(
      path === '/audit-log' ? 'Failed to load data' : `You do not have permission for this area (${rule})`,
    );
  }
  await signOut(page);
  await signIn(page);

  // A firewall rule template; the expression is checked before saving.
  const ruleName = uniqueName('E2E Block bots');
  await page.goto('/firewall-rules');
  await page.getByRole('link', { name: 'Create Firewall Rule' }).click();
  await page.getByLabel('Name').fill(ruleName);
  await page.getByLabel('Action').selectOption('block');
  await page.getByLabel('Expression').fill('(http.request.uri.path eq "/admin"');
  await page.getByLabel('Default Priority').fill('');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('Unbalanced parenthesis: "(" at position 1 is never closed')).toBeVisible();
  await page.getByLabel('Expression').fill('(http.requets.uri.path eq "/admin")');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('Did you mean "http.request.uri.path"?')).toBeVisible();
  await page.getByLabel('Expression').fill('(http.request.uri.path eq "/admin") and not cf.client.bot');
  await page.getByRole('button', { name: 'Create' }).click();
  await expectToast(page, 'Firewall Rule created successfully');
  const ruleId = idFrom(page.url());
  // An empty priority became 0.
  await expect(page.getByLabel('Default Priority')).toHaveValue('0');
  await expect(page.getByLabel('Action')).toHaveValue('block');

  // A registrator, created from the List tab.
  const registratorName = uniqueName('E2E Namecheap');
  await page.goto('/domain-registrators');
  await expect(page.getByRole('tab', { name: 'List', selected: true })).toBeVisible();
  await page.getByRole('link', { name: 'Create Domain Registrator' }).click();
  await expect(page.getByRole('heading', { name: 'Create Domain Registrator' })).toBeVisible();
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill(registratorName);
  await page.getByLabel('Endpoint URL').selectOption('https://api.namecheap.com/xml.response');
  await page.getByLabel('API Username').fill('acme');
  await page.getByLabel('API Key').fill('e2e-secret-key');
  await page.getByRole('button', { name: 'Create' }).click();
  await expectToast(page, 'Domain Registrator created successfully');
  const registratorId = idFrom(page.url());
  // The credentials stay locked until "Update credentials" is ticked; the key comes back masked.
  await expect(page.getByLabel('API Username')).toBeDisabled();
  await expect(page.getByLabel('API Key')).not.toHaveValue('e2e-secret-key');
  await expect(page.getByLabel('Type')).toBeDisabled();
  await page.getByLabel('Update credentials').check();
  await expect(page.getByLabel('API Username')).toBeEnabled();
  await page.getByLabel('API Username').fill('acme2');
  await page.getByRole('button', { name: 'Save' }).click();
  await expectToast(page, 'Domain Registrator saved successfully');
  await expect(page.getByLabel('API Username')).toHaveValue('acme2');
  await expect(page.getByLabel('API Username')).toBeDisabled();
  const token = await apiToken(request);
  const revealed = await request.post(`/api/domain-registrators/${registratorId}/reveal`, {
    data: { field: 'apiKey' },
    headers: { Authorization: token },
  });
  expect((await revealed.json()).data.value).toBe('e2e-secret-key');

  // A contact, created from the Contacts tab, then deleted: back to the Contacts tab.
  const contactName = uniqueName('E2E Registrant');
  await page.goto('/domain-registrators');
  await page.getByRole('tab', { name: 'Contacts' }).click();
  await expect(page).toHaveURL(/tab=contacts/);
  await page.getByRole('link', { name: 'Create Contact' }).click();
  await expect(page.getByRole('heading', { name: 'Create Contact' })).toBeVisible();
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill(contactName);
  await page.getByLabel('Phone').fill('555 0100');
  await page.getByLabel('Email').fill('registrant@example.com');
  await page.getByLabel('Country').selectOption('DE');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('Phone must look like +NNN.NNNNNNNNNN')).toBeVisible();
  await page.getByLabel('Phone').fill('+49.3012345678');
  await page.getByRole('button', { name: 'Create' }).click();
  await expectToast(page, 'Contact created successfully');
  await expect(page).toHaveURL(/\/domain-registrators-contacts\/[0-9a-f-]{36}$/);
  await expect(page.getByLabel('Country')).toHaveValue('DE');
  await page.getByRole('link', { name: 'Delete Contact' }).click();
  await expect(dialog(page)).toContainText('Are you sure you want to delete this contact?');
  await dialog(page).getByRole('button', { name: 'Confirm' }).click();
  await expectToast(page, 'Contact deleted successfully');
  await expect(page).toHaveURL(/\/domain-registrators\?tab=contacts$/);
  await expect(page.getByRole('tab', { name: 'Contacts', selected: true })).toBeVisible();
  await page.getByRole('searchbox', { name: 'Search' }).fill(contactName);
  await expect(page.getByTestId('empty-state')).toContainText(`match "${contactName}"`);

  // The History of the user: the audit log filtered to them, with the password redacted.
  await page.goto(`/users/${userId}`);
  await page.getByRole('link', { name: 'History' }).click();
  await expect(page).toHaveURL(new RegExp(`/audit-log\\?entity=users&entityId=${userId}$`));
  await expect(page.getByRole('heading', { name: 'Audit Log' })).toBeVisible();
  await expect(tableRows(page)).toHaveCount(1);
  await expect(tableRows(page).first()).toContainText('create');
  await tableRows(page)
    .first()
    .getByRole('button', { name: /Show entry/ })
    .click();
  const entry = page.getByRole('dialog', { name: /admin created user/ });
  await expect(entry.getByRole('row', { name: /username/ })).toContainText(username);
  await expect(entry.getByRole('row', { name: /roles/ })).toContainText(roleName);
  await expect(entry.getByRole('row', { name: /password/ })).toContainText('redacted');
  await expect(entry).not.toContainText(password);
  await entry.getByRole('button', { name: 'Close', exact: true }).last().click();
  await expect(entry).toBeHidden();

  // Clean up what the test made (the user first: the role is held by them).
  await apiDelete(request, token, 'users', userId);
  await apiDelete(request, token, 'roles', roleId);
  await apiDelete(request, token, 'firewall-rules', ruleId);
  await apiDelete(request, token, 'domain-registrators', registratorId);
});

test("an administrator sees a user's API tokens on the user's page and revokes one", async ({ page, request }) => {
  const admin = await apiToken(request);
  const role = await apiCreate(request, admin, 'roles', { name: uniqueName('E2E Token role'), rules: ['cnv:brands'] });
  const username = `e2etok${Date.now().toString(36)}`;
  const password = 'e2e password 123';
  const user = await apiCreate(request, admin, 'users', {
    username,
    name: 'E2E Token Owner',
    email: `${username}@example.com`,
    password,
    status: 'active',
    roles: [role._id],
  });
  const owner = await apiToken(request, { username, password });
  const made = await apiCall<{ token: string }>(request, owner, 'POST', '/auth/tokens', {
    name: 'nightly sync',
    rules: ['cnv:brands'],
    expiresInDays: 30,
  });
  const bearer = `Bearer ${made.token}`;
  expect((await request.get('/api/brands', { headers: { Authorization: bearer } })).status()).toBe(200);

  await signIn(page);
  await page.goto(`/users/${user._id}`);
  const list = page.getByRole('list', { name: 'API tokens' });
  await expect(list).toContainText('nightly sync');
  await expect(list).toContainText('Brands');
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await list.scrollIntoViewIfNeeded();
    await page.screenshot({ path: test.info().outputPath(`user-tokens-${width}.png`) });
  }
  await page.getByRole('button', { name: 'Revoke token nightly sync' }).click();
  await dialog(page).getByRole('button', { name: 'Revoke' }).click();
  await expect(page.getByText('No API token.')).toBeVisible();
  expect((await request.get('/api/brands', { headers: { Authorization: bearer } })).status()).toBe(401);
});
