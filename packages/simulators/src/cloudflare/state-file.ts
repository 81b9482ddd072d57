import fs from 'node:fs';
import type { CloudflareSimState } from './sim-state.ts';

// Maps survive JSON as tagged entry lists.
const replacer = (_k: string, v: unknown) => (v instanceof Map ? { __map: [...v.entries()] } : v);
const reviver = (_k: string, v: unknown) =>
  v && typeof v === 'object' && '__map' in v ? new Map((v as { __map: [unknown, unknown][] }).__map) : v;

/** Accounts and zones only: the request and purge logs are per run. */
export function saveState(state: CloudflareSimState, file: string) {
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify({ accounts: state.accounts, zones: state.zones }, replacer));
  fs.renameSync(tmp, file);
}

export function loadState(state: CloudflareSimState, file: string) {
  if (!fs.existsSync(file)) return;
  const saved = JSON.parse(fs.readFileSync(file, 'utf8'), reviver) as Pick<CloudflareSimState, 'accounts' | 'zones'>;
  for (const [k, v] of saved.accounts) state.accounts.set(k, v);
  // Files written before zones had a plan hold Free zones.
  for (const [k, v] of saved.zones) state.zones.set(k, { ...v, plan: v.plan ?? 'free' });
}
