import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * BIND's named-checkzone as the judge of every zone file the tests export (issue 43). The tools come from Debian's
 * bind9-utils, which CI installs (.ci/run): there a missing tool is a failure; elsewhere the check is left out.
 */
const has = (tool: string) => spawnSync(tool, ['-v'], { encoding: 'utf8' }).status === 0;
export const BIND_TOOLS = has('named-checkzone') && has('named-compilezone');
export const BIND_MISSING =
  'named-checkzone and named-compilezone are not installed (Debian: apt-get install bind9-utils)';

/** named-checkzone's verdict on one exported file: ok, or its words; undefined where the tool is absent (not CI). */
export function namedCheckzone(zone: string, text: string): { ok: boolean; out: string } | undefined {
  if (!BIND_TOOLS) {
    if (process.env.CI) throw new Error(`${BIND_MISSING}: CI must install them before the tests`);
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'fd-checkzone-'));
  try {
    const file = join(dir, `${zone}.zone`);
    writeFileSync(file, text);
    const r = spawnSync('named-checkzone', ['-i', 'local', zone, file], { encoding: 'utf8' });
    return { ok: r.status === 0, out: `${r.stdout}${r.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
