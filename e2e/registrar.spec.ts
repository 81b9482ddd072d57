import type { APIRequestContext, Page } from '@playwright/test';
import {
  apiCreate,
  apiToken,
  demoCloudId,
  expect,
  expectToast,
  signIn,
  tableRows,
  test,
  uniqueName,
} from './fixtures.ts';
import { apiCall as api } from './fixtures.ts';

/**
 * The registrar against the demo's Namecheap simulator: the demo registrator "Namecheap sandbox" holds most of
 * the demo domains tied to it, plus names only the registrar has (to import).
 */

const DEMO_REGISTRATOR = 'Namecheap sandbox';
const DEMO_CONTACT = 'Default registrant';

async function demo(request: APIRequestContext) {
  const token = await apiToken(request);
  const regs = await api<{ items: { _id: string; name: string }[] }>(
    request,
    token,
    'GET',
    `/api/domain-registrators?search=${encodeURIComponent(DEMO_REGISTRATOR)}`,
  );
  const registrator = regs.items.find((r) => r.name === DEMO_REGISTRATOR);
  expect(registrator, 'the demo registrator').toBeTruthy();
  return { token, registratorId: registrator!._id, cloudId: await demoCloudId(request, token) };
}

/** What the domains list shows for a YYYY-MM-DD date (the browser's locale). */
const shownDay = (page: Page, iso: string) =>
  page.evaluate((v) => {
    const [y, m, d] = v.split('-').map(Number);
    return new Date(y!, m! - 1, d!).toLocaleDateString();
  }, iso);

test('checks a domain’s registrar info, and the expiration date lands in the domains list', async ({
  page,
  request,
}) => {
  const { token, registratorId } = await demo(request);
  // A demo domain the account holds; its stored date is made stale first.
  const listed = await api<{ items: { domainName: string; existsInConsole: boolean; domainId: string | null }[] }>(
    request,
    token,
    'GET',
    `/api/domain-registrators/${registratorId}/domains`,
  );
  const held = listed.items.find((d) => d.existsInConsole && d.domainId);
  expect(held, 'a demo domain held at the registrar').toBeTruthy();
  await api(request, token, 'PATCH', `/api/domains/${held!.domainId}`, {
    domainRegistratorId: registratorId,
    domainRegistratorExpirationDate: '2001-01-01',
  });
  await signIn(page);

  await page.goto(`/domains/${held!.domainId}?tab=domain-registrator`);
  const info = page.getByTestId('registrator-info');
  // The first call of a fresh demo can be slow on a busy machine.
  await expect(info).toContainText('Status', { timeout: 30_000 });
  const date = (await info.locator('dd').nth(1).textContent())!.trim();
  expect(date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  expect(date).not.toBe('2001-01-01');
  await expect(page.getByLabel('Expiration Date')).toHaveValue(date);

  await page.goto(`/domains?search=${encodeURIComponent(held!.domainName)}`);
  await expect(tableRows(page)).toHaveCount(1);
  await expect(tableRows(page).first()).toContainText(await shownDay(page, date));

  // The warnings: no registrator on an unsaved form, then no domain name.
  await page.goto('/domains/create?tab=domain-registrator');
  await expect(page.getByText('Domain Name is not set')).toBeVisible();
  await page.goto('/domains/create');
  await page.getByLabel('Domain Name').fill('someone-else.com');
  await page.getByRole('tab', { name: 'Domain Registrator' }).click();
  await expect(page.getByText('Domain registrator is not selected')).toBeVisible();
});

test('imports two domains from the registrator’s list', async ({ page, request }) => {
  const { registratorId } = await demo(request);
  await signIn(page);
  await page.goto(`/domain-registrators/${registratorId}`);
  await page.locator(`a[href="/domain-registrators/${registratorId}/domains"]`).click();
  await expect(page.getByRole('heading', { name: 'Registrator Domains' })).toBeVisible();
  await expect(page.getByText(/Total: \d+/)).toBeVisible();
  // The demo account holds more than a page, and the console's own domains are marked.
  await expect(tableRows(page)).toHaveCount(20);
  await expect(page.getByRole('link', { name: 'In console' }).first()).toBeVisible();

  for (const name of ['atlas-outdoor.com', 'birch-studio.net']) {
    await page.getByRole('searchbox', { name: 'Search' }).fill(name);
    await expect(tableRows(page)).toHaveCount(1);
    await expect(tableRows(page).first()).toContainText(name);
    await page.getByRole('checkbox', { name: `Select ${name}` }).check();
  }
  await expect(page.getByText('2 selected')).toBeVisible();
  await page.getByRole('button', { name: 'Import (2)' }).click();
  await expectToast(page, 'Imported 2 domains');
  await expect(page.getByTestId('import-result')).toContainText('atlas-outdoor.com, birch-studio.net');
  await expect(tableRows(page).first().getByRole('link', { name: 'In console' })).toBeVisible();
  await expect(page.getByRole('checkbox', { name: 'Select birch-studio.net' })).toBeDisabled();

  await page.goto('/domains?search=atlas-outdoor.com');
  await expect(tableRows(page)).toHaveCount(1);
  await tableRows(page).first().getByRole('link', { name: 'atlas-outdoor.com' }).click();
  await page.getByRole('tab', { name: 'Domain Registrator' }).click();
  await expect(page.getByTestId('field-domainRegistratorId').getByRole('textbox')).toHaveValue(DEMO_REGISTRATOR);
  await expect(page.getByTestId('registrator-info')).toBeVisible();
});

test('registers a domain with a contact, then sets its name servers to its Cloudflare zone', async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const { token, registratorId, cloudId } = await demo(request);
  const domainName = `${uniqueName('e2e-reg').replace(/\s+/g, '-').toLowerCase()}.com`;
  const plain = await apiCreate(request, token, 'domains', { domainName: `x-${domainName}`, status: 'active' });
  const domain = await apiCreate(request, token, 'domains', {
    domainName,
    status: 'active',
    cloudId,
    domainRegistratorId: registratorId,
  });
  await signIn(page);

  // Without a registrator the page says where to choose one.
  await page.goto(`/domains/${plain._id}/register`);
  await expect(page.getByTestId('register-no-registrator')).toHaveText(
    'Domain registrator is not selected: choose a registrator in the Domain Registrator tab. Open the Domain Registrator tab',
  );

  // Not at the registrar yet: the tab shows Namecheap's message with Register and Refresh.
  await page.goto(`/domains/${domain._id}?tab=domain-registrator`);
  const unsuccessful = page.getByTestId('registrator-info-unsuccessful');
  await expect(unsuccessful).toContainText('Namecheap 2019166: Domain not found');
  await expect(unsuccessful.getByRole('button', { name: 'Refresh' })).toBeVisible();
  await unsuccessful.getByRole('link', { name: 'Register' }).click();
  await expect(page.getByRole('heading', { name: 'Register Domain' })).toBeVisible();

  await page.getByRole('button', { name: 'Register' }).click();
  await expect(page.getByText('Contact is required')).toBeVisible();
  await page.getByRole('button', { name: 'Select' }).click();
  const picker = page.getByRole('dialog', { name: 'Select a domain registrator contact' });
  await picker.getByRole('searchbox', { name: 'Search' }).fill(DEMO_CONTACT);
  await expect(tableRows(picker)).toHaveCount(1);
  await tableRows(picker).first().click();
  await expect(picker).toBeHidden();
  await page.getByRole('button', { name: 'Register' }).click();
  const result = page.getByTestId('register-result');
  await expect(result).toContainText(`${domainName} is registered`);
  await expect(result).toContainText(/Order id\s*\d+/);
  await expect(result).toContainText(/Charged amount\s*10\.87/);

  // The tab now has the registrar's answer.
  await page.goto(`/domains/${domain._id}?tab=domain-registrator`);
  await expect(page.getByTestId('registrator-info')).toContainText('Ok');

  // A zone for it, then the cloud action points the registrar at the zone's name servers.
  await api(request, token, 'POST', `/api/domains/${domain._id}/cloud-flare/create-zone`);
  await page.goto(`/domains/${domain._id}?tab=cloud`);
  await page.getByRole('button', { name: 'Cloud Actions' }).click();
  await page
    .getByRole('dialog', { name: 'Cloud Actions' })
    .getByRole('link', { name: 'Set name servers at registrar' })
    .click();
  await expect(page.getByRole('heading', { name: 'Set name servers at registrar' })).toBeVisible();
  await page.getByRole('button', { name: 'Set name servers' }).click();
  const ns = page.getByTestId('registrar-ns-result');
  await expect(ns).toContainText('Name servers updated');
  await expect(page.getByTestId('registrar-ns-before').locator('code')).toHaveText([
    'dns1.registrar-servers.com',
    'dns2.registrar-servers.com',
  ]);
  const after = await page.getByTestId('registrar-ns-after').locator('code').allTextContents();
  expect(after).toHaveLength(2);
  for (const n of after) expect(n).toMatch(/^[a-z]+\.ns\.cloudflare\.com$/);
});
