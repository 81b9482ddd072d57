import { readStateFile, writeStateFile } from '../http-server.ts';
import type { CloudflareSimState } from './sim-state.ts';

// Maps survive JSON as tagged entry lists.
const replacer = (_k: string, v: unknown) => (v instanceof Map ? { __map: [...v.entries()] } : v);
const reviver = (_k: string, v: unknown) =>
  v && typeof v === 'object' && '__map' in v ? new Map((v as { __map: [unknown, unknown][] }).__map) : v;

/** Accounts and zones only: the request and purge logs are per run. */
export function saveState(state: CloudflareSimState, file: string) {
  writeStateFile(file, { accounts: state.accounts, zones: state.zones }, replacer);
}

export function loadState(state: CloudflareSimState, file: string) {
  const saved = readStateFile<Pick<CloudflareSimState, 'accounts' | 'zones'>>(file, reviver);
  if (!saved) return;
  for (const [k, v] of saved.accounts) state.accounts.set(k, v);
  // Files written before zones had a plan hold Free zones.
  for (const [k, v] of saved.zones) state.zones.set(k, { ...v, plan: v.plan ?? 'free' });
}
