import type { Container } from '../container.ts';
import { systemActor } from '../http/context.ts';
import { DEMO_CLOUDS } from './seed.ts';

type Log = { info(obj: unknown, msg?: string): void; warn(obj: unknown, msg?: string): void };

/**
 * Demo fleet plans, made through the fleet service like an operator's (the job engine must be started): one
 * run to the end (SSL Full strict, over the first account's domains with a zone: bluefin-demo.net, in the second
 * account, keeps its deliberate SSL drift, see seed-health.ts), one left planned to read and run (an SPF record
 * on each domain with a zone).
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
    const first = (await c.services.clouds.list({ page: 1, search: DEMO_CLOUDS[0]!.email })).items[0];
    if (!first) return;
    const ssl = await fleet.create(
      {
        selection: { filter: { hasZone: true, cloudId: first._id } } as never,
        action: { kind: 'ssl', value: 'strict' },
      },
      actor,
    );
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
