import type { Container } from '../container.ts';
import type { Actor } from '../http/context.ts';
import { dayFromNow } from './seed-domains.ts';

/**
 * On purpose: three registrations end within the dashboard's 30 days (the other demo dates are at least two months
 * away, and none has ended). cobalt-travel.fr has 5 days left, so its Registration expiry check fails (a week or
 * less); the other two read as a warning. Renewing at the registrar (the Domain Registrator tab) is the way out.
 */
export const DEMO_EXPIRING = [
  { name: 'cobalt-travel.fr', days: 5 },
  { name: 'münchen-reisen.de', days: 12 },
  { name: 'juniper-deals.io', days: 24 },
] as const;

/** Dates relative to the day the demo starts, on the demo domains named above (each must exist, with a registrar). */
export async function seedDemoDashboard(c: Container, actor: Actor): Promise<number> {
  for (const x of DEMO_EXPIRING) {
    const d = (await c.services.domains.list({ page: 1, search: x.name })).items.find(
      (i) => i.domainNameUnicode === x.name || i.domainName === x.name,
    );
    if (!d?.domainRegistratorId) throw new Error(`the demo domain ${x.name} with a registrar is missing`);
    await c.services.domains.update(d._id, { domainRegistratorExpirationDate: dayFromNow(x.days) }, actor);
  }
  return DEMO_EXPIRING.length;
}
