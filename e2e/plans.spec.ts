import { apiCall, apiToken, expect, signIn, test } from './fixtures.ts';

type Listed = { items: { _id: string; planNo: number }[] };

/** One address for any plan (decision 084): /plans/{id} opens the page of the plan's kind. */
test('/plans/{id} opens a fleet plan and an import on their own pages, and says when there is no such plan', async ({
  page,
  request,
  consoleGuard,
}) => {
  const token = await apiToken(request);
  await signIn(page);
  const cases = [
    ['/api/fleet/plans', '/fleet/', 'Fleet plan #'],
    ['/api/imports', '/imports/', 'Import #'],
  ] as const;
  for (const [list, path, title] of cases) {
    const plans = await apiCall<Listed>(request, token, 'GET', list);
    expect(plans.items.length, `the demo has ${list}`).toBeGreaterThan(0);
    const plan = plans.items[0]!;
    await page.goto(`/plans/${plan._id}`);
    await expect(page).toHaveURL(new RegExp(`${path}${plan._id}$`));
    await expect(page.getByRole('heading', { level: 1 })).toContainText(`${title}${plan.planNo}`);
  }
  // A plan that does not exist: the API's 404 is the page's own message.
  consoleGuard.allow(/404 \(Not Found\).*\/api\/plans\/00000000-/);
  await page.goto('/plans/00000000-0000-4000-8000-000000000000');
  await expect(page.getByRole('alert')).toContainText('Plan not found');
});
