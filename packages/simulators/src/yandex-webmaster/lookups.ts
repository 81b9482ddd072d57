import fs from 'node:fs/promises';
import path from 'node:path';
import type { CloudflareSim } from '../cloudflare/index.ts';

/**
 * The Yandex simulator's DNS check, answered from the Cloudflare simulator's zones: the TXT values at a host
 * name, as a resolver would see them once Cloudflare serves the zone.
 */
export function cloudflareTxtLookup(cf: Pick<CloudflareSim, 'state'>) {
  return (hostname: string): string[] => {
    const name = hostname.toLowerCase();
    const out: string[] = [];
    for (const zone of cf.state.zones.values()) {
      if (name !== zone.name && !name.endsWith(`.${zone.name}`)) continue;
      for (const r of zone.dnsRecords.values())
        if (r.type === 'TXT' && r.name.toLowerCase() === name) out.push(r.content);
    }
    return out;
  };
}

/**
 * The Yandex simulator's file check, answered from a directory tree such as the SSH test host's root:
 * `dirFor(hostname)` names the site's document root (or undefined), and the file is read from there.
 */
export function directoryFileLookup(dirFor: (hostname: string) => string | undefined | Promise<string | undefined>) {
  return async (hostname: string, fileName: string): Promise<string | undefined> => {
    if (!/^[\w.-]+$/.test(fileName)) return undefined;
    const dir = await dirFor(hostname);
    if (!dir) return undefined;
    try {
      const stat = await fs.stat(path.join(dir, fileName));
      if (!stat.isFile() || stat.size > 64 * 1024) return undefined;
      return await fs.readFile(path.join(dir, fileName), 'utf8');
    } catch {
      return undefined;
    }
  };
}
