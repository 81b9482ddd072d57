import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, signIn, test } from './fixtures.ts';

/**
 * Every route of the router at a phone's and a laptop's width, with the demo's ids: nothing overflows sideways
 * outside a scroll container, no visible control is narrower than what it shows, no table cell on a phone is
 * squeezed below 80 px with text that wraps, and no console error (the fixture's guard). The routes are read
 * from the router's sources (apps/web/src/features/x/index.ts and app/router.tsx), so a route added later is
 * visited without touching this file, and one whose ids cannot be found fails the test. The tabs of the domain
 * and host pages are visited one by one, the domain's panel tabs also for a domain without a server.
 */
const WIDTHS = [390, 1280] as const;
// Playwright runs from the repository's root (playwright.config.ts).
const WEB = path.resolve('apps', 'web', 'src');

/** The router's route patterns, read from its sources: crudRoutes('x', …) and `path: '…'` entries. */
function routePatterns(): string[] {
  const files = [
    path.join(WEB, 'app', 'router.tsx'),
    ...fs
      .readdirSync(path.join(WEB, 'features'))
      .map((f) => path.join(WEB, 'features', f, 'index.ts'))
      .filter((f) => fs.existsSync(f)),
  ];
  const out = new Set<string>();
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    const base = /const base = '([^']+)'/.exec(text)?.[1];
    for (const m of text.matchAll(/crudRoutes\('([^']+)'/g)) {
      out.add(`/${m[1]}`).add(`/${m[1]}/create`).add(`/${m[1]}/:id`);
      // Its elements run to the next crudRoutes call or the end of the file.
      const next = text.indexOf('crudRoutes(', m.index + 1);
      if (/\bdelete:/.test(text.slice(m.index, next < 0 ? undefined : next))) out.add(`/${m[1]}/:id/delete`);
    }
    for (const m of text.matchAll(/path: (?:'([^']*)'|`\$\{base\}([^`]*)`)/g)) {
      const p = m[1] ?? `${base}${m[2]}`;
      if (p !== '*') out.add(`/${p}`);
    }
  }
  out.add('/');
  return [...out].filter((p) => !/^\/(login|logout)$/.test(p)).sort();
}

type DemoIds = { byResource: Map<string, string>; domain: string; bareDomain: string; account: string; host: string };

async function demoIds(page: Page): Promise<DemoIds> {
  const token = (await page.evaluate(() => localStorage.getItem('fleetdesk.token'))) ?? '';
  const get = async <T>(url: string) => {
    const res = await page.request.get(url, { headers: { authorization: token } });
    expect(res.ok(), `${url}: ${await res.text()}`).toBe(true);
    return ((await res.json()) as { data: T }).data;
  };
  const firstOf = async (url: string) => (await get<{ items: { _id: string }[] }>(url)).items[0]?._id;
  const byResource = new Map<string, string>();
  for (const r of [
    'servers',
    'clouds',
    'proxies',
    'brands',
    'regions',
    'users',
    'roles',
    'firewall-rules',
    'domain-registrators',
    'domain-registrators-contacts',
    'dns-templates',
    'launch-profiles',
    'notification-channels',
    'alert-rules',
  ]) {
    const id = await firstOf(`/api/${r}`);
    if (id) byResource.set(r, id);
  }
  const google = await firstOf('/api/google-search/accounts');
  if (google) byResource.set('google-search', google);
  const plan = await firstOf('/api/fleet/plans');
  if (plan) byResource.set('fleet', plan);
  // /plans/{id} opens any plan on its kind's page: the demo's fleet plan.
  if (plan) byResource.set('plans', plan);
  // The demo plans an import and exports zone files once its jobs run (seed-imports.ts).
  // The demo launches a site and plans a batch once its jobs run (seed-launches.ts).
  // A launch is made by launches.spec in a whole run; alone, this spec makes one (it stops before registering).
  const launch =
    (await firstOf('/api/launches')) ??
    (await (async () => {
      const profileId = await firstOf('/api/launch-profiles');
      const res = await page.request.post('/api/launches', {
        headers: { authorization: token },
        data: { domainName: `responsive-${Date.now().toString(36)}.com`, profileId },
      });
      expect(res.status(), await res.text()).toBe(201);
      return ((await res.json()) as { data: { _id: string } }).data._id;
    })());
  byResource.set('launches', launch);
  const batch = await firstOf('/api/launches/batches');
  if (batch) byResource.set('launches/batches', batch);
  const imported = await firstOf('/api/imports');
  if (imported) byResource.set('imports', imported);
  const zoneExport = await firstOf('/api/jobs?kind=zone-files.export');
  if (zoneExport) byResource.set('imports/zone-export', zoneExport);
  // The demo's domain with a zone, a server and a webmaster account shows the most; one without a server the rest.
  type D = {
    _id: string;
    cloudZoneId: string | null;
    serverId: string | null;
    yandexWebmasterAccountId: string | null;
  };
  // The demo's own domains (fleetdesk-demo.*) carry zones, servers and an account; page 1 of the list may not.
  const domains = [
    ...(await get<{ items: D[] }>('/api/domains?search=fleetdesk-demo')).items,
    ...(await get<{ items: D[] }>('/api/domains')).items,
  ];
  const domain =
    domains.find((d) => d.cloudZoneId && d.serverId && d.yandexWebmasterAccountId) ??
    domains.find((d) => d.cloudZoneId) ??
    domains[0]!;
  const bare = domains.find((d) => !d.serverId);
  const account = (await firstOf('/api/yandex-webmaster/accounts')) ?? '';
  const hosts = account ? await get<{ host_id: string }[]>(`/api/yandex-webmaster/accounts/${account}/api/hosts`) : [];
  return {
    byResource,
    domain: domain._id,
    bareDomain: bare?._id ?? '',
    account,
    host: hosts[0]?.host_id ?? '',
  };
}

/** A pattern with the demo's ids in it, or null when the demo has none to give. */
function fill(pattern: string, ids: DemoIds): string | null {
  if (!pattern.includes(':')) return pattern;
  const resource = pattern.split('/')[1]!;
  let out = pattern;
  if (resource === 'domains') out = out.replace(':id', ids.domain);
  else if (pattern.startsWith('/imports/zone-export/'))
    out = out.replace(':id', ids.byResource.get('imports/zone-export') ?? '');
  else if (pattern.startsWith('/launches/batches/'))
    out = out.replace(':id', ids.byResource.get('launches/batches') ?? '');
  else if (resource === 'yandex-webmaster')
    out = out.replace(':id', ids.account).replace(':hostId', encodeURIComponent(ids.host));
  else out = out.replace(':id', ids.byResource.get(resource) ?? '');
  return out.includes('//') || out.endsWith('/') || /:\w/.test(out) ? null : out;
}

const DOMAIN_TABS = [
  'general',
  'cloud',
  'direct-admin',
  'isp-manager',
  'domain-registrator',
  'yandex-webmaster',
  'google-search',
];
const HOST_TABS = [
  'general',
  'summary',
  'important-urls',
  'sitemaps',
  'user-added-sitemaps',
  'recrawl',
  'verification',
];

type Problem = { kind: string; what: string; detail: string };

/**
 * Resolves once the page has had no request open for quietMs (at most maxMs in all). Playwright's 'networkidle'
 * waits a fixed 500 ms after the last one: over 290 routes that was most of this spec's time.
 */
function quietNetwork(page: Page) {
  let open = 0;
  let last = Date.now();
  page.on('request', () => {
    open++;
    last = Date.now();
  });
  const ended = () => {
    open = Math.max(0, open - 1);
    last = Date.now();
  };
  page.on('requestfinished', ended);
  page.on('requestfailed', ended);
  return async (quietMs = 200, maxMs = 15_000) => {
    const until = Date.now() + maxMs;
    while (Date.now() < until && (open > 0 || Date.now() - last < quietMs)) await page.waitForTimeout(25);
  };
}

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
  // On a phone a table cell is never squeezed so that its text wraps every few characters.
  if (vw < 576) {
    for (const td of document.querySelectorAll('td')) {
      if (!visible(td) || td.matches('.fd-cell-no, .fd-cell-select')) continue;
      const w = td.getBoundingClientRect().width;
      const text = (td as HTMLElement).innerText.trim();
      if (w < 80 && text && textWidth(text.split('\n')[0]!, td) > contentBox(td) + 1)
        problems.push({ kind: 'narrow cell', what: describe(td), detail: `${Math.round(w)}px wide` });
    }
  }
  return problems;
}

for (const width of WIDTHS) {
  test(`every route reads at ${width} px`, async ({ page }) => {
    test.setTimeout(900_000);
    await page.setViewportSize({ width, height: 844 });
    await signIn(page);
    const ids = await demoIds(page);
    const patterns = routePatterns();
    expect(patterns.length, 'routes read from the router').toBeGreaterThan(50);

    const unfilled = patterns.filter((p) => fill(p, ids) === null);
    expect(unfilled, 'routes the demo has no ids for').toEqual([]);
    const hrefs = patterns.map((p) => fill(p, ids)!);
    const domainPath = `/domains/${ids.domain}`;
    const hostPath = `/yandex-webmaster/accounts/${ids.account}/hosts/${encodeURIComponent(ids.host)}`;
    hrefs.push(...DOMAIN_TABS.map((t) => `${domainPath}?tab=${t}`));
    if (ids.bareDomain)
      hrefs.push(...['direct-admin', 'isp-manager'].map((t) => `/domains/${ids.bareDomain}?tab=${t}`));
    if (ids.host) hrefs.push(...HOST_TABS.map((t) => `${hostPath}?tab=${t}`));

    const report: string[] = [];
    const settled = quietNetwork(page);
    for (const href of hrefs) {
      await page.goto(href, { waitUntil: 'domcontentloaded' });
      await expect(page.locator('main')).toBeVisible();
      // Let the data and any spinner settle.
      await settled();
      await expect(page.locator('main .spinner-border'))
        .toHaveCount(0, { timeout: 15_000 })
        .catch(() => undefined);
      for (const p of await page.evaluate(findProblems)) report.push(`${href}: ${p.kind} ${p.what} (${p.detail})`);
    }
    expect(report, `layout problems at ${width} px`).toEqual([]);
  });
}
