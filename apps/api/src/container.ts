import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/client.ts';
import { loadAppKey, createSecretBox } from './lib/secret-box.ts';
import { createUsageRegistry } from './lib/usage.ts';
import { createAuditRepository } from './modules/audit/audit.repository.ts';
import { createAuditService } from './modules/audit/audit.service.ts';
import { createAuthRepository } from './modules/auth/auth.repository.ts';
import { createAuthService } from './modules/auth/auth.service.ts';
import { createLoginThrottle } from './modules/auth/login-throttle.ts';
import { createBrandsRepository } from './modules/brands/brands.repository.ts';
import { createBrandsService } from './modules/brands/brands.service.ts';
import { createRegionsRepository } from './modules/regions/regions.repository.ts';
import { createRegionsService } from './modules/regions/regions.service.ts';
import { createRolesRepository } from './modules/roles/roles.repository.ts';
import { createUsersRepository } from './modules/users/users.repository.ts';
import { createUsersService } from './modules/users/users.service.ts';
import { createRolesService } from './modules/roles/roles.service.ts';
import { createFirewallRulesRepository } from './modules/firewall-rules/firewall-rules.repository.ts';
import { createFirewallRulesService } from './modules/firewall-rules/firewall-rules.service.ts';
import { createDomainRegistratorsRepository } from './modules/domain-registrators/domain-registrators.repository.ts';
import { createDomainRegistratorsService } from './modules/domain-registrators/domain-registrators.service.ts';
import { createDomainRegistratorsContactsRepository } from './modules/domain-registrators-contacts/domain-registrators-contacts.repository.ts';
import { createDomainRegistratorsContactsService } from './modules/domain-registrators-contacts/domain-registrators-contacts.service.ts';
import { createCloudsRepository } from './modules/clouds/clouds.repository.ts';
import { createCloudsService } from './modules/clouds/clouds.service.ts';
import { createProxiesRepository } from './modules/proxies/proxies.repository.ts';
import { createProxiesService } from './modules/proxies/proxies.service.ts';
import { createServersRepository } from './modules/servers/servers.repository.ts';
import { createServersService } from './modules/servers/servers.service.ts';
import { createSshPool } from './files/ssh/index.ts';
import { createDomainsRepository, domainsQtySql } from './modules/domains/domains.repository.ts';
import { createDomainsService } from './modules/domains/domains.service.ts';
import { createCloudflareClient } from './integrations/cloudflare/index.ts';
import { createCloudflareRouting } from './modules/cloud-flare/cloudflare-routing.ts';
import { createCloudFlareService } from './modules/cloud-flare/cloud-flare.service.ts';
import { createYandexWebmasterClient } from './integrations/yandex-webmaster/index.ts';
import { createContentFilePort } from './modules/yandex-webmaster/content-file-port.ts';
import { createYandexWebmasterRepository } from './modules/yandex-webmaster/yandex-webmaster.repository.ts';
import {
  createYandexWebmasterService,
  type WebmasterDnsPort,
} from './modules/yandex-webmaster/yandex-webmaster.service.ts';

/** The one composition root: database, then repositories, integrations, services. */
export async function createContainer(config: Config, opts: { database?: Database } = {}) {
  const database =
    opts.database ?? (await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: `${config.DATA_DIR}/pgdata` }));
  const { db } = database;
  const secrets = createSecretBox(loadAppKey({ secret: config.APP_SECRET_KEY, dataDir: config.DATA_DIR }));
  const usage = createUsageRegistry();

  const repos = {
    audit: createAuditRepository(db),
    auth: createAuthRepository(db),
    users: createUsersRepository(db),
    roles: createRolesRepository(db),
    firewallRules: createFirewallRulesRepository(db),
    domainRegistrators: createDomainRegistratorsRepository(db),
    domainRegistratorsContacts: createDomainRegistratorsContactsRepository(db),
    brands: createBrandsRepository(db),
    regions: createRegionsRepository(db),
    clouds: createCloudsRepository(db),
    proxies: createProxiesRepository(db),
    servers: createServersRepository(db),
    domains: createDomainsRepository(db),
    yandexWebmaster: createYandexWebmasterRepository(db),
  };
  repos.servers.setDomainsQtySql(domainsQtySql);

  const audit = createAuditService({ repo: repos.audit });
  const ssh = createSshPool({ connectTimeoutMs: config.SSH_TIMEOUT_SECONDS * 1000 });
  const regions = createRegionsService({ database, audit, usage, repo: repos.regions });
  const throttle = createLoginThrottle({
    maxFailures: config.LOGIN_MAX_FAILURES,
    lockMs: config.LOGIN_LOCK_MINUTES * 60_000,
  });
  const users = createUsersService({
    database,
    users: repos.users,
    roles: repos.roles,
    sessions: repos.auth,
    audit,
    usage,
  });
  const brands = createBrandsService({ database, audit, usage, repo: repos.brands });
  const clouds = createCloudsService({ database, audit, usage, secrets, repo: repos.clouds, regions });
  const yandexWebmasterClient = createYandexWebmasterClient({
    baseUrl: config.YANDEX_WEBMASTER_API_URL,
    timeoutMs: config.YANDEX_WEBMASTER_TIMEOUT_SECONDS * 1000,
  });
  const yandexWebmaster = createYandexWebmasterService({
    database,
    audit,
    usage,
    secrets,
    repo: repos.yandexWebmaster,
    client: yandexWebmasterClient,
  });
  const services = {
    audit,
    auth: createAuthService({
      database,
      repo: repos.auth,
      users: repos.users,
      audit,
      throttle,
      policy: { ttlMs: config.SESSION_TTL_HOURS * 3_600_000, idleMs: config.SESSION_IDLE_MINUTES * 60_000 },
    }),
    users,
    roles: createRolesService({ database, audit, usage, repo: repos.roles, holders: users }),
    firewallRules: createFirewallRulesService({ database, audit, usage, repo: repos.firewallRules }),
    domainRegistrators: createDomainRegistratorsService({
      database,
      audit,
      usage,
      secrets,
      repo: repos.domainRegistrators,
    }),
    domainRegistratorsContacts: createDomainRegistratorsContactsService({
      database,
      audit,
      usage,
      repo: repos.domainRegistratorsContacts,
    }),
    brands,
    regions,
    clouds,
    proxies: createProxiesService({
      database,
      audit,
      usage,
      secrets,
      repo: repos.proxies,
      regions,
      checkUrl: config.PROXY_CHECK_URL,
    }),
    servers: createServersService({ database, audit, usage, secrets, repo: repos.servers, ssh }),
    domains: createDomainsService({
      database,
      audit,
      usage,
      repo: repos.domains,
      clouds,
      brands,
      webmasterAccounts: yandexWebmaster,
    }),
    yandexWebmaster,
  };

  // One Cloudflare client for every cloud: its request budget and account-id cache are per credentials, and
  // each call's proxy route comes from the cloud it acts for (see cloudflare-routing.ts).
  const cloudflareRouting = createCloudflareRouting();
  const cloudflare = createCloudflareClient({
    baseUrl: config.CLOUDFLARE_API_URL,
    timeoutMs: config.CLOUDFLARE_TIMEOUT_SECONDS * 1000,
    budget: { requests: config.CLOUDFLARE_BUDGET_PER_5_MIN, windowMs: 5 * 60_000 },
    dispatcherFor: cloudflareRouting.dispatcherFor,
  });
  const cloudFlare = createCloudFlareService({
    cloudflare,
    routing: cloudflareRouting,
    domains: services.domains,
    clouds,
    proxies: services.proxies,
    audit,
    proxyTimeoutMs: config.CLOUDFLARE_TIMEOUT_SECONDS * 1000,
  });

  // One-click verification places its TXT record through the Cloudflare actions' own DNS code.
  // …and its verification file through the content-file layer.
  yandexWebmaster.wire({
    domains: services.domains,
    dns: cloudFlare as unknown as WebmasterDnsPort,
    files: createContentFilePort({ ssh, domains: services.domains, servers: services.servers, audit }),
  });
  // URLs held back past a day's recrawl quota go out on later days (decision 027).
  const drainTimer =
    config.YANDEX_RECRAWL_DRAIN_MINUTES > 0
      ? setInterval(() => void yandexWebmaster.drainRecrawlBacklog(), config.YANDEX_RECRAWL_DRAIN_MINUTES * 60_000)
      : undefined;
  drainTimer?.unref();

  return {
    config,
    database,
    secrets,
    usage,
    ssh,
    repos,
    cloudflare,
    services: { ...services, cloudFlare },
    yandexWebmasterClient,
    async close() {
      if (drainTimer) clearInterval(drainTimer);
      ssh.closeAll();
      await database.close();
    },
  };
}
export type Container = Awaited<ReturnType<typeof createContainer>>;
