import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

/**
 * `engines` in package.json says which Node the install supports; a clean `npm ci` on that Node must print no
 * EBADENGINE warning, so every package in the lock file must accept its lowest version, and the README must name it.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
};

describe('engines', () => {
  const lowest = semver.minVersion(pkg.engines.node)!.version;

  it('every locked package accepts the lowest Node that package.json names', () => {
    const refusing = Object.entries(lock.packages)
      .filter(([name, p]) => name && !Array.isArray(p.engines) && p.engines?.node)
      .filter(([, p]) => !semver.satisfies(lowest, (p.engines as { node: string }).node))
      .map(([name, p]) => `${name} (${(p.engines as { node: string }).node})`);
    expect(refusing).toEqual([]);
  });

  it('the README names the same Node version', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    expect(readme).toContain(`Needs Node.js ${lowest.replace(/\.0$/, '')} or newer`);
  });
});
