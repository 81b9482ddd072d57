import { LaunchBatchInputSchema } from '@fleetdesk/contract';
import type { Container } from '../container.ts';
import { systemActor } from '../http/context.ts';

type Log = { info(obj: unknown, msg?: string): void; warn(obj: unknown, msg?: string): void };

/**
 * A demo launch batch, made through the batch service like an operator's (the job engine must be started): two
 * names planned with the demo profile, to read and run. Planning changes nothing (no domain is made until it
 * runs), so the demo's figures stay as seeded. Only on a demo without batches; in the background.
 */
export function seedDemoLaunches(c: Container, log: Log): void {
  const actor = systemActor('admin');
  const run = async () => {
    if ((await c.services.launchBatches.list(1)).itemsCount > 0) return;
    const profile = (await c.services.launchProfiles.list({ search: 'Demo launch', page: 1 })).items[0];
    if (!profile) return;
    await c.services.launchBatches.create(
      LaunchBatchInputSchema.parse({
        settings: { profileId: profile._id },
        names: 'harbor-demo.net\nmeadow-demo.org',
        confirmCostly: true,
      }),
      actor,
    );
    log.info({ batches: 1 }, 'demo launch batch seeded');
  };
  void run().catch((err: unknown) =>
    log.warn({ err: { message: err instanceof Error ? err.message : String(err) } }, 'demo launch batch not seeded'),
  );
}
