import type { Page } from '@playwright/test';
import { expect, signIn, test } from './fixtures.ts';

/**
 * Every screen at a phone's and a laptop's width: nothing overflows sideways outside a scroll container, and no
 * visible control is narrower than what it shows. The routes are found, not listed: the side menu's links, then
 * every same-site link on the pages reached (one page per route pattern, ids folded), so routes added later are
 * covered without touching this file. Header menus are opened so their links count too.
 */

const WIDTHS = [390, 1280] as const;
const MAX_PAGES = 90;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** The pattern a path stands for: ids folded, query kept only for tabs. */
const patternOf = (href: string) => {
  const url = new URL(href, 'http://x');
  const tab = url.searchParams.get('tab');
  return `${url.pathname.replace(UUID, ':id').replace(/\/hosts\/[^/]+/, '/hosts/:host')}${tab ? `?tab=${tab}` : ''}`;
};
const SKIP = [/^\/logout/, /^\/login/, /^\/api\//, /\/download/];

async function linksOn(page: Page): Promise<string[]> {
  // Header action menus render their links only when open.
  for (const name of ['Domain Actions', 'Actions']) {
    const toggle = page.getByRole('button', { name, exact: true }).first();
    if (await toggle.isVisible().catch(() => false)) await toggle.click().catch(() => undefined);
  }
  const hrefs = await page.evaluate(() =>
    [...document.querySelectorAll('a[href^="/"]')].map((a) => (a as HTMLAnchorElement).getAttribute('href') ?? ''),
  );
  await page.keyboard.press('Escape');
  return hrefs;
}

type Problem = { kind: string; what: string; detail: string };

/** Runs in the page: sideways overflow outside scroll containers, and controls too narrow for their content. */
function findProblems(): Problem[] {
  const problems: Problem[] = [];
  const vw = document.documentElement.clientWidth;
  const describe = (el: Element) => {
    const label =
      el.getAttribute('aria-label') ??
      (el as HTMLElement).innerText?.trim().slice(0, 40) ??
      (el as HTMLInputElement).value?.slice(0, 40);
    return `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).slice(0, 3).join('.')}` : ''} "${label ?? ''}"`;
  };
  const visible = (el: Element) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return false;
    const s = getComputedStyle(el);
    return s.visibility !== 'hidden' && s.display !== 'none' && Number(s.opacity) > 0;
  };
  const inScroller = (el: Element) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden' || o === 'clip') return true;
    }
    return false;
  };
  if (document.documentElement.scrollWidth > vw + 1)
    problems.push({
      kind: 'page overflow',
      what: 'document',
      detail: `${document.documentElement.scrollWidth} > ${vw}`,
    });
  for (const el of document.querySelectorAll('body *')) {
    if (!visible(el)) continue;
    const r = el.getBoundingClientRect();
    if ((r.right > vw + 1 || r.left < -1) && !inScroller(el) && getComputedStyle(el).position !== 'fixed')
      problems.push({
        kind: 'overflow',
        what: describe(el),
        detail: `left ${Math.round(r.left)}, right ${Math.round(r.right)} of ${vw}`,
      });
  }
  const canvas = document.createElement('canvas').getContext('2d')!;
  const textWidth = (text: string, el: Element) => {
    canvas.font = getComputedStyle(el).font;
    return canvas.measureText(text).width;
  };
  const contentBox = (el: Element) => {
    const s = getComputedStyle(el);
    return el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
  };
  for (const el of document.querySelectorAll(
    'select, button, .btn, input:not([type=checkbox]):not([type=radio]):not([type=hidden]):not([type=file])',
  )) {
    if (!visible(el)) continue;
    if (el instanceof HTMLSelectElement) {
      const text = el.selectedOptions[0]?.text ?? '';
      if (text && textWidth(text, el) > contentBox(el) + 1)
        problems.push({
          kind: 'narrow select',
          what: describe(el),
          detail: `"${text}" needs ${Math.round(textWidth(text, el))}px, has ${Math.round(contentBox(el))}px`,
        });
    } else if (el instanceof HTMLInputElement) {
      // A long value may scroll inside its box, but a box too narrow to show a few characters is unusable.
      const need = Math.min(textWidth(el.value || el.placeholder || '', el), textWidth('M'.repeat(6), el));
      if (contentBox(el) + 1 < need)
        problems.push({
          kind: 'narrow input',
          what: describe(el),
          detail: `has ${Math.round(contentBox(el))}px, needs ${Math.round(need)}px`,
        });
    } else if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'auto') {
      problems.push({ kind: 'cut button', what: describe(el), detail: `${el.scrollWidth} > ${el.clientWidth}` });
    }
  }
  return problems;
}

for (const width of WIDTHS) {
  test(`every route reads at ${width} px`, async ({ page, consoleGuard }) => {
    test.setTimeout(600_000);
    // Visiting everything provokes provider answers some screens show as errors (a zone that does not exist…).
    consoleGuard.allow(/Failed to load resource/);
    await page.setViewportSize({ width, height: 844 });
    await signIn(page);

    await page.getByRole('button', { name: 'Open menu' }).click();
    const menu = page.getByRole('navigation', { name: 'Main menu' });
    await expect(menu).toBeVisible();
    const start = await menu.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
    await page.keyboard.press('Escape');
    expect(start.length).toBeGreaterThan(10);

    // A domain with a Cloudflare zone first: its record editors (DNS, redirects) then have records to lay out.
    const token = await page.evaluate(() => localStorage.getItem('fleetdesk.token'));
    let zoned: { _id: string } | undefined;
    for (let p = 1; p <= 10 && !zoned; p++) {
      const res = await page.request.get(`/api/domains?page=${p}`, { headers: { authorization: token ?? '' } });
      const items = ((await res.json()) as { data: { items: { _id: string; cloudZoneId: string | null }[] } }).data
        .items;
      if (!items.length) break;
      zoned = items.find((d) => d.cloudZoneId);
    }
    const queue = [...(zoned ? [`/domains/${zoned._id}`] : []), ...start];
    const seen = new Set<string>();
    const report: string[] = [];
    let visited = 0;
    while (queue.length && visited < MAX_PAGES) {
      const href = queue.shift()!;
      const pattern = patternOf(href);
      if (seen.has(pattern) || SKIP.some((re) => re.test(href))) continue;
      seen.add(pattern);
      visited++;
      await page.goto(href);
      await expect(page.locator('main')).toBeVisible();
      // Let the data and any spinner settle.
      await page.waitForLoadState('networkidle');
      await expect(page.locator('main .spinner-border'))
        .toHaveCount(0, { timeout: 15_000 })
        .catch(() => undefined);
      for (const p of await page.evaluate(findProblems)) report.push(`${pattern}: ${p.kind} ${p.what} (${p.detail})`);
      for (const next of await linksOn(page)) if (!seen.has(patternOf(next))) queue.push(next);
    }
    expect(visited, 'routes visited').toBeGreaterThan(30);
    expect(report, `layout problems at ${width} px`).toEqual([]);
  });
}
