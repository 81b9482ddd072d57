import { asc, eq } from 'drizzle-orm';
import type { Container } from '../container.ts';
import type { Actor } from '../http/context.ts';
import { domains } from '../db/schema/index.ts';

/**
 * Demo mode (issue 27): a DNS template and a launch profile ready to use, so that a newcomer launches a site with
 * a name and the profile. The profile copies the content of the first site on the SSH-reachable server (the one
 * seedDemoSites filled) and uses the demo's brand, cloud, registrator, contact, WAF templates and Yandex account.
 */
export async function seedDemoLaunch(
  c: Container,
  actor: Actor,
  refs: {
    serverId: string;
    cloudId: string;
    brandId: string | null;
    domainRegistratorId: string;
    domainRegistratorContactId: string;
    firewallRuleIds: string[];
    yandexWebmasterAccountId: string;
  },
) {
  const template = await c.services.dnsTemplates.create(
    {
      name: 'Standard site',
      records: [
        { type: 'A', name: '@', content: '{serverIp}', ttl: 1, proxied: true },
        { type: 'CNAME', name: 'www', content: '{domain}', ttl: 1, proxied: true },
        { type: 'TXT', name: '@', content: 'v=spf1 -all', ttl: 1, proxied: false },
      ],
    },
    actor,
  );
  const [source] = await c.database.db
    .select({ id: domains.id })
    .from(domains)
    .where(eq(domains.serverId, refs.serverId))
    .orderBy(asc(domains.domainName))
    .limit(1);
  await c.services.launchProfiles.create(
    {
      name: 'Demo launch',
      brandId: refs.brandId,
      serverId: refs.serverId,
      cloudId: refs.cloudId,
      domainRegistratorId: refs.domainRegistratorId,
      register: true,
      domainRegistratorContactId: refs.domainRegistratorContactId,
      contentSource: source ? { kind: 'copy', domainId: source.id } : { kind: 'none' },
      dnsTemplateId: template._id,
      firewallRuleIds: refs.firewallRuleIds,
      sslMode: 'strict',
      tls13: true,
      yandexWebmasterAccountId: refs.yandexWebmasterAccountId,
      // Left to the operator: a launch from the demo's profile does not touch the seeded Google property.
      googleSearchAccountId: null,
    },
    actor,
  );
}
