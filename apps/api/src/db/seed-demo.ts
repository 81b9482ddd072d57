import type { FastifyBaseLogger } from 'fastify';
import type { Container } from '../container.ts';
import { systemActor } from '../http/context.ts';

export const DEMO_REGIONS = [
  'Europe West',
  'Europe East',
  'North America',
  'South America',
  'Asia Pacific',
  'Middle East',
  'Africa',
  'Oceania',
];
export const DEMO_BRANDS = ['Aurora Media', 'Bluefin', 'Cobalt Games', 'Driftwood', 'Evergreen News', 'Fjord Travel'];

/** Seeds a data directory once: only when it has no users yet. */
export async function seedDemo(c: Container, log: FastifyBaseLogger) {
  const admin = await c.services.users.ensureAdmin({ username: 'admin', password: 'admin-demo-password' });
  if (!admin.created) {
    log.info('demo data already present; not seeding again');
    return;
  }
  // The demo promises admin / admin, shorter than the production minimum: set it directly.
  await c.repos.users.setPasswordHashByUsername(
    'admin',
    await (await import('../lib/passwords.ts')).hashPassword('admin'),
  );
  const actor = systemActor('demo-seed');
  for (const name of DEMO_REGIONS) await c.services.regions.create({ name }, actor);
  for (const name of DEMO_BRANDS) await c.services.brands.create({ name }, actor);
  log.info('demo data seeded');
}
