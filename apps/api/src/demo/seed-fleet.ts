import type { Container } from '../container.ts';
import { systemActor } from '../http/context.ts';

type Log = { info(obj: unknown, msg?: string): void; warn(obj: unknown, msg?: string): void };

/**
 * Demo fleet plans, made through the fleet service like an operator's (the job engine must be started): one
 * run to the end (SSL Full strict, over the domains with a zone), one left planned to read and run (an SPF
 * record on each).
 * Only on a demo database without plans; it runs in the background, so start-up does not wait for it.
 */
export function seedDemoFleet(c: Container, log: Log): void {
  const actor = systemActor('admin');
  const fleet = c.services.fleet;
  const waitFor = async (id: string, states: string[]) => {
    for (let i = 0; i < 600; i++) {
      const p = await fleet.get(id);
      if (states.includes(p.state)) return p;
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error(`demo fleet plan ${id} did not finish`);
  };
  const run = async () => {
    if ((await fleet.list(1)).itemsCount > 0) return;
    const selection = { filter: { hasZone: true } } as never;
    const ssl = await fleet.create({ selection, action: { kind: 'ssl', value: 'strict' } }, actor);
    await waitFor(ssl._id, ['planned', 'failed']);
    if ((await fleet.get(ssl._id)).run.total > 0) {
      await fleet.run(ssl._id, actor);
      await waitFor(ssl._id, ['completed', 'failed']);
    }
    const record = { type: 'TXT', name: '@', content: 'v=spf1 -all', ttl: 1, proxied: false } as const;
    const spf = await fleet.create({ selection, action: { kind: 'dns_add', record } }, actor);
    await waitFor(spf._id, ['planned', 'failed']);
    log.info({ plans: 2 }, 'demo fleet plans seeded');
  };
  void run().catch((err: unknown) =>
    log.warn({ err: { message: err instanceof Error ? err.message : String(err) } }, 'demo fleet plans not seeded'),
  );
}
