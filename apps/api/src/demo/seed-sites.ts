import fs from 'node:fs';
import path from 'node:path';
import { asc, eq } from 'drizzle-orm';
import type { Container } from '../container.ts';
import { DEMO_DIRECTADMIN, type DemoProviders } from './providers.ts';
import { domainDirName } from '../files/content/index.ts';
import { domains, servers } from '../db/schema/index.ts';

const css = `body { font-family: system-ui, sans-serif; margin: 0; color: #1f2933; }
header { background: #0b7285; color: #fff; padding: 1.5rem; display: flex; align-items: center; gap: 1rem; }
main { max-width: 48rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.6; }
img.hero { width: 100%; border-radius: .5rem; }
`;
const logo = `<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48"><circle cx="24" cy="24" r="22" fill="#fff"/><path d="M14 30l10-14 10 14z" fill="#0b7285"/></svg>
`;
const hero = `<svg xmlns="http://www.w3.org/2000/svg" width="800" height="240" viewBox="0 0 800 240"><rect width="800" height="240" fill="#e3fafc"/><path d="M0 200 L200 90 L360 170 L520 60 L800 190 L800 240 L0 240z" fill="#3bc9db"/></svg>
`;
const page = (name: string) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${name}</title>
  <link rel="stylesheet" href="css/style.css">
</head>
<body>
  <header><img src="img/logo.svg" alt="" width="48" height="48"><h1>${name}</h1></header>
  <main>
    <img class="hero" src="img/hero.svg" alt="Mountains">
    <p>Welcome to ${name}. This sample site lives on the demo SSH host; edit it under Edit Content Files.</p>
    <p><a href="about.html">About us</a></p>
  </main>
</body>
</html>
`;

/** Writes the sample site (index.html, about.html, CSS and images) into a domain's directory, unless it has one. */
export function writeDemoSite(dir: string, domainName: string) {
  if (fs.existsSync(dir)) return;
  fs.mkdirSync(path.join(dir, 'css'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'img'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'index.html'), page(domainName));
  fs.writeFileSync(path.join(dir, 'about.html'), page(`About ${domainName}`).replace('index', 'about'));
  fs.writeFileSync(path.join(dir, 'css', 'style.css'), css);
  fs.writeFileSync(path.join(dir, 'img', 'logo.svg'), logo);
  fs.writeFileSync(path.join(dir, 'img', 'hero.svg'), hero);
}

/**
 * Demo mode: every domain on the demo's SSH-reachable servers gets a small site in its directory on that server's
 * SSH host (which the demo's web server serves, and the file manager shows), and, on the server with the hosting
 * panels, its DirectAdmin site: what the health checks look for. A domain made later (in the console) has none, so
 * Create Directory can be tried on it.
 */
export async function seedDemoSites(
  c: Container,
  providers: DemoProviders,
  hosts: { id: string; rootDir: string; panel: boolean }[],
) {
  let n = 0;
  for (const host of hosts) {
    const [server] = await c.database.db
      .select({ domainsPath: servers.domainsPath })
      .from(servers)
      .where(eq(servers.id, host.id));
    const rows = await c.database.db
      .select({ domainName: domains.domainName })
      .from(domains)
      .where(eq(domains.serverId, host.id))
      .orderBy(asc(domains.domainName));
    for (const { domainName } of rows) {
      writeDemoSite(path.join(host.rootDir, server?.domainsPath ?? '/www', domainDirName(domainName)), domainName);
      if (host.panel) providers.directAdmin.addDomain(DEMO_DIRECTADMIN.user, domainDirName(domainName));
      n++;
    }
  }
  return n;
}
