import { EXPIRING_WITHIN_DAYS } from '@fleetdesk/contract';
import type { Container } from '../container.ts';
import type { Actor } from '../http/context.ts';

/**
 * The dashboard's "Expiring in the next 30 days" needs dates relative to the day the demo starts (the other
 * demo dates are fixed): a few domains get a registration that ends within the window.
 */
export async function seedDemoDashboard(c: Container, actor: Actor): Promise<number> {
  const { items } = await c.services.domains.list({ page: 1, search: '' });
  const picked = items.filter((d) => d.domainRegistratorId).slice(2, 6);
  const offsets = [3, 9, 17, EXPIRING_WITHIN_DAYS - 2];
  let n = 0;
  for (const [i, d] of picked.entries()) {
    const day = new Date(Date.now() + offsets[i]! * 86_400_000).toISOString().slice(0, 10);
    await c.services.domains.update(d._id, { domainRegistratorExpirationDate: day }, actor);
    n++;
  }
  return n;
}
