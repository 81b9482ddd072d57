/**
 * Benchmarks' shared wiring: start the simulators in a child process (bench/simulators-child.ts) and talk to it,
 * and read `--name value` arguments.
 *
 * In the bench's own process the simulators would share one event loop (and one core) with the API under test,
 * so the API's throughput would be bounded by the simulators' work as much as by its own. Forked, they take the
 * machine's other core. The child prints its URLs as one JSON line on stdout and answers small requests over the
 * IPC channel (add an account, read usage and counts, its CPU time, close).
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { CloudflareSimOptions } from '../packages/simulators/src/cloudflare/index.ts';
import type { DirectAdminSimOptions } from '../packages/simulators/src/directadmin/index.ts';
import type { NamecheapSimOptions } from '../packages/simulators/src/namecheap/index.ts';
import type { SshHostOptions } from '../packages/simulators/src/ssh-host/index.ts';
import type { YandexWebmasterSimOptions } from '../packages/simulators/src/yandex-webmaster/index.ts';

/** What to start: each simulator's own options (JSON only; functions are named by flags instead). */
export type SimulatorsSpec = {
  cloudflare?: CloudflareSimOptions;
  namecheap?: NamecheapSimOptions;
  directadmin?: DirectAdminSimOptions;
  sshHost?: Pick<SshHostOptions, 'authorizedKeys' | 'rootDir'>;
  /** `txtFromCloudflare`: verification TXT records are read from the Cloudflare simulator's zones. */
  yandex?: Omit<YandexWebmasterSimOptions, 'dnsTxtLookup'> & { txtFromCloudflare?: boolean };
  /** A pending zone turns active once the Namecheap simulator's name servers for it are its account's. */
  activateZonesOnNameServers?: boolean;
};

export type SimulatorsReady = {
  pid: number;
  cloudflare?: string;
  namecheap?: string;
  directadmin?: string;
  yandex?: string;
  sshPort?: number;
  sshRootDir?: string;
};

export type SimulatorCounts = { namecheap: number; directadmin: number; yandex: number; yandexRecrawls: number };
export type CpuMark = { user: number; system: number; at: number };

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'simulators-child.ts');
/** No simulator answer takes this long; past it the bench stops rather than hang. */
const CALL_TIMEOUT_MS = 30_000;
const START_TIMEOUT_MS = 60_000;

export async function startSimulatorsChild(spec: SimulatorsSpec) {
  // The parent runs under tsx; its exec arguments (the loader) let the child run TypeScript too.
  const child: ChildProcess = fork(CHILD, [JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const ready = await new Promise<SimulatorsReady>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the simulators did not start in time')), START_TIMEOUT_MS);
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(line) as SimulatorsReady);
      } catch {
        reject(new Error(`the simulators said ${line.slice(0, 200)}`));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the simulators exited (${code}) before they were ready`));
    });
  });

  let seq = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  child.on('message', (m: { id: number; ok: boolean; value?: unknown; error?: string }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.ok) p.resolve(m.value);
    else p.reject(new Error(`simulators: ${m.error}`));
  });
  child.on('exit', () => {
    for (const p of pending.values()) p.reject(new Error('the simulators exited'));
    pending.clear();
  });
  const call = <T>(op: string, ...args: unknown[]) =>
    new Promise<T>((resolve, reject) => {
      const id = ++seq;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`simulators: no answer to ${op}`));
      }, CALL_TIMEOUT_MS);
      pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      child.send({ id, op, args });
    });

  return {
    ...ready,
    cloudflareAddAccount: (input: { email: string; token: string }) =>
      call<{ accountId: string }>('cloudflare.addAccount', input),
    /** Per Cloudflare account: requests answered and 429s. */
    cloudflareUsage: async () =>
      new Map(
        Object.entries(await call<Record<string, { requests: number; rateLimited: number }>>('cloudflare.usage')),
      ),
    namecheapAddAccount: (input: { apiUser: string; apiKey: string; balance?: number }) =>
      call<void>('namecheap.addAccount', input),
    yandexAddUser: (token: string) => call<{ userId: number }>('yandex.addUser', token),
    counts: () => call<SimulatorCounts>('counts'),
    cpu: () => call<CpuMark>('cpu'),
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      await call('close').catch(() => child.kill());
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
export type SimulatorsChild = Awaited<ReturnType<typeof startSimulatorsChild>>;

/** This process's CPU time so far, in the child's units. */
export const cpuMark = (): CpuMark => ({ ...process.cpuUsage(), at: performance.now() });
/** CPU used between two marks as a share of one core (100 % = one core busy throughout). */
export const cpuShare = (a: CpuMark, b: CpuMark) =>
  (b.user - a.user + (b.system - a.system)) / 1000 / Math.max(1, b.at - a.at);

/** `--name value` from the command line as a number, or the fallback. */
export function numberArg(name: string, fallback: number, argv = process.argv.slice(2)): number {
  const i = argv.indexOf(`--${name}`);
  if (i < 0 || argv[i + 1] === undefined) return fallback;
  const n = Number(argv[i + 1]);
  if (!Number.isFinite(n)) throw new Error(`--${name} takes a number, not ${argv[i + 1]}`);
  return n;
}
