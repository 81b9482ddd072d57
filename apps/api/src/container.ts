import { setListPageCacheSize } from './http/list-query.ts';
import { FLEET_PLAN_MAX, type DomainFilter } from '@fleetdesk/contract';
import type { Config } from './config.ts';
import { openDatabase, secureDataDir, type Database } from './db/client.ts';
import { loadAppKey, createSecretBox } from './lib/secret-box.ts';
import { createUsageRegistry } from './lib/usage.ts';
import { createAuditRepository } from './modules/audit/audit.repository.ts';
import { createAuditService } from './modules/audit/audit.service.ts';
import { createAuthRepository } from './modules/auth/auth.repository.ts';
import { createAuthService } from './modules/auth/auth.service.ts';
import { createLoginThrottle } from './modules/auth/login-throttle.ts';
import { createCodeThrottle } from './modules/auth/code-throttle.ts';
import { createSessionOpener } from './modules/auth/open-session.ts';
import { createTwoFactorRepository } from './modules/auth/two-factor.repository.ts';
import { createTwoFactorService } from './modules/auth/two-factor.service.ts';
import { createOidcRepository } from './modules/auth/oidc.repository.ts';
import { createOidcService, oidcSettingsOf } from './modules/auth/oidc.service.ts';
import { createRequestMinutes } from './modules/cloud-flare/request-minutes.ts';
import { credentialKey } from './integrations/cloudflare/cloudflare-client.ts';
import { createApiTokensRepository } from './modules/api-tokens/api-tokens.repository.ts';
import { apiTokenFromHeader, createApiTokensService } from './modules/api-tokens/api-tokens.service.ts';
import { tokenMayCall } from './modules/api-tokens/token-limits.ts';
import type { CallerAuthenticator } from './http/auth-guard.ts';
import { createSessionsRepository } from './modules/sessions/sessions.repository.ts';
import { createSessionsService } from './modules/sessions/sessions.service.ts';
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
import {
  createCloudflareClient,
  createRequestBudget,
  createSharedRequestBudget,
} from './integrations/cloudflare/index.ts';
import { createCloudflareRouting } from './modules/cloud-flare/cloudflare-routing.ts';
import { createZoneLocks } from './modules/cloud-flare/zone-lock.ts';
import { createCloudFlareService } from './modules/cloud-flare/cloud-flare.service.ts';
import { createDirectAdminClient } from './integrations/directadmin/index.ts';
import { createDirectAdminService } from './modules/direct-admin/direct-admin.service.ts';
import { createIspManagerClient } from './integrations/ispmanager/index.ts';
import { createIspManagerService } from './modules/ispmanager/ispmanager.service.ts';
import { createJobsRepository } from './modules/jobs/jobs.repository.ts';
import { createJobsService } from './modules/jobs/jobs.service.ts';
import { createJobEngine, type JobEngineOptions } from './jobs/engine.ts';
import { createJobRegistry, type JobDefinition } from './jobs/registry.ts';
import { proxiesHealthCheckJob, serversHealthCheckJob } from './jobs/kinds/health-checks.ts';
import { createNamecheapClient } from './integrations/namecheap/index.ts';
import { createRegistrarService } from './modules/domain-registrators/registrar.service.ts';
import { createZoneFileService } from './modules/cloud-flare/zone-file.service.ts';
import { createZoneFileExports } from './modules/cloud-flare/zone-file-export.ts';
import { copyContentFilesJob, domainDirOf, generateSitemapJob, replacementJob } from './jobs/kinds/domain-jobs.ts';
import { parsingJob } from './jobs/kinds/parsing.ts';
import { createParsingService } from './modules/jobs/parsing.service.ts';
import { createYandexWebmasterClient } from './integrations/yandex-webmaster/index.ts';
import { createGoogleSearchClient } from './integrations/google-search/index.ts';
import { createGoogleSearchRepository } from './modules/google-search/google-search.repository.ts';
import { createGoogleSearchService } from './modules/google-search/google-search.service.ts';
import { createContentFilePort } from './modules/yandex-webmaster/content-file-port.ts';
import { createYandexWebmasterRepository } from './modules/yandex-webmaster/yandex-webmaster.repository.ts';
import { createIndexNowRepository } from './modules/indexnow/indexnow.repository.ts';
import { createIndexNowService } from './modules/indexnow/indexnow.service.ts';
import { createIndexNowClient } from './integrations/indexnow/index.ts';
import {
  createYandexWebmasterService,
  type WebmasterDnsPort,
} from './modules/yandex-webmaster/yandex-webmaster.service.ts';
import { createFleetRepository } from './modules/fleet/fleet.repository.ts';
import { createDnsTemplatesRepository } from './modules/dns-templates/dns-templates.repository.ts';
import { createDnsTemplatesService } from './modules/dns-templates/dns-templates.service.ts';
import { createLaunchProfilesRepository } from './modules/launch-profiles/launch-profiles.repository.ts';
import { createLaunchProfilesService } from './modules/launch-profiles/launch-profiles.service.ts';
import { createFleetService, type FleetService } from './modules/fleet/fleet.service.ts';
import { createFleetStateService } from './modules/fleet/fleet-state.service.ts';
import { fleetPlanJob, fleetRunJob } from './jobs/kinds/fleet.ts';
import { importPlanJob, importRunJob } from './jobs/kinds/imports.ts';
import { createImportsRepository } from './modules/imports/imports.repository.ts';
import { createPlanEngine } from './modules/plans/plans.engine.ts';
import { createPlansRepository } from './modules/plans/plans.repository.ts';
import { launchBatchPlanJob, launchBatchRunJob, launchRunJob } from './jobs/kinds/launches.ts';
import { createLaunchBatchesService, type LaunchBatchesService } from './modules/launches/launch-batches.service.ts';
import { createLaunchesRepository } from './modules/launches/launches.repository.ts';
import { createLaunchesService, type LaunchesService } from './modules/launches/launches.service.ts';
import { createImportsService, type ImportsService } from './modules/imports/imports.service.ts';
import { createContentFilesService } from './modules/content-files/content-files.service.ts';
import { createContentSnapshotsRepository } from './modules/content-snapshots/content-snapshots.repository.ts';
import { createContentSnapshotsService } from './modules/content-snapshots/content-snapshots.service.ts';
import { createDashboardRepository } from './modules/dashboard/dashboard.repository.ts';
import { createDashboardService } from './modules/dashboard/dashboard.service.ts';
import { createSearchRepository } from './modules/search/search.repository.ts';
import { createSearchService } from './modules/search/search.service.ts';
import { createHealthRepository } from './modules/health/health.repository.ts';
import { createHealthService, type HealthService } from './modules/health/health.service.ts';
import { createHealthChecks } from './modules/health/health.checks.ts';
import { createHealthFixes } from './modules/health/health.fix.ts';
import { probeHttps } from './integrations/proxy/https-probe.ts';
import { HEALTH_CYCLE_JOB, healthCheckJob, healthCycleJob } from './jobs/kinds/health.ts';
import { TRAFFIC_CYCLE_JOB, trafficCycleJob } from './jobs/kinds/traffic.ts';
import { createTrafficRepository } from './modules/traffic/traffic.repository.ts';
import { createTrafficService, type TrafficService } from './modules/traffic/traffic.service.ts';
import { createNotificationChannelsRepository } from './modules/notification-channels/notification-channels.repository.ts';
import { createNotificationChannelsService } from './modules/notification-channels/notification-channels.service.ts';
import { createAlertRulesRepository } from './modules/alert-rules/alert-rules.repository.ts';
import { createAlertRulesService } from './modules/alert-rules/alert-rules.service.ts';
import { createAlertsRepository } from './modules/alerts/alerts.repository.ts';
import { createAlertsService, type AlertsService } from './modules/alerts/alerts.service.ts';
import { createAlertSources } from './modules/alerts/alerts.sources.ts';
import { createSmtpClient } from './integrations/notify/smtp.ts';
import { createWebhookClient } from './integrations/notify/webhook.ts';
import { createTelegramClient } from './integrations/notify/telegram.ts';
import {
  ALERTS_DELIVER_JOB,
  ALERTS_EVALUATE_JOB,
  DELIVERY_RETRY,
  alertsDeliverJob,
  alertsEvaluateJob,
} from './jobs/kinds/alerts.ts';

/** The one composition root: database, then repositories, integrations, services. */
export async function createContainer(
  config: Config,
  opts: {
    database?: Database;
    extraJobs?: JobDefinition[];
    jobOptions?: Partial<JobEngineOptions>;
    /** The embedded database's worker thread died (PGLITE_THREAD=worker): the server exits on it. */
    onDatabaseFailure?: (err: Error) => void;
    /** A PostgreSQL connection was lost (the pool replaces it; the process goes on): for the log. */
    onDatabaseConnectionLost?: (err: Error) => void;
    /** Where the job engine logs (queue errors, lost connections, takeovers). */
    log?: Parameters<typeof createJobEngine>[0]['log'];
  } = {},
) {
  secureDataDir(config.DATA_DIR);
  const database =
    opts.database ??
    (await openDatabase({
      databaseUrl: config.DATABASE_URL,
      dataDir: `${config.DATA_DIR}/pgdata`,
      thread: config.PGLITE_THREAD,
      onFailure: opts.onDatabaseFailure,
      onConnectionLost: opts.onDatabaseConnectionLost,
    }));
  const { db } = database;
  const secrets = createSecretBox(loadAppKey({ secret: config.APP_SECRET_KEY, dataDir: config.DATA_DIR }));
  const usage = createUsageRegistry();
  // Every list keeps up to this many pages, each served again only while its tables' versions hold (decision 038).
  setListPageCacheSize(db, config.LIST_PAGE_CACHE_SIZE);

  const plans = createPlansRepository(db);
  const repos = {
    audit: createAuditRepository(db),
    auth: createAuthRepository(db),
    twoFactor: createTwoFactorRepository(db),
    oidc: createOidcRepository(db),
    apiTokens: createApiTokensRepository(db),
    sessions: createSessionsRepository(db),
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
    jobs: createJobsRepository(db),
    yandexWebmaster: createYandexWebmasterRepository(db),
    googleSearch: createGoogleSearchRepository(db),
    indexNow: createIndexNowRepository(db),
    contentSnapshots: createContentSnapshotsRepository(db),
    dashboard: createDashboardRepository(db),
    search: createSearchRepository(db),
    fleet: createFleetRepository(db, plans),
    dnsTemplates: createDnsTemplatesRepository(db),
    launchProfiles: createLaunchProfilesRepository(db),
    plans,
    imports: createImportsRepository(db, plans),
    launches: createLaunchesRepository(db, plans),
    health: createHealthRepository(db),
    traffic: createTrafficRepository(db),
    notificationChannels: createNotificationChannelsRepository(db),
    alertRules: createAlertRulesRepository(db),
    alerts: createAlertsRepository(db),
  };
  repos.servers.setDomainsQtySql(domainsQtySql);

  const audit = createAuditService({ repo: repos.audit });
  const ssh = createSshPool({ connectTimeoutMs: config.SSH_TIMEOUT_SECONDS * 1000 });
  const regions = createRegionsService({ database, audit, usage, repo: repos.regions });
  const throttle = createLoginThrottle({
    database,
    policy: {
      freeAttempts: config.LOGIN_FREE_ATTEMPTS,
      delayMs: config.LOGIN_DELAY_SECONDS * 1000,
      maxDelayMs: config.LOGIN_MAX_DELAY_MINUTES * 60_000,
      windowMs: config.LOGIN_WINDOW_MINUTES * 60_000,
      addressMaxFailures: config.LOGIN_ADDRESS_MAX_FAILURES,
      usernameSlowAfter: config.LOGIN_USERNAME_SLOW_AFTER,
    },
  });
  const users = createUsersService({
    database,
    users: repos.users,
    roles: repos.roles,
    sessions: repos.auth,
    tokens: repos.apiTokens,
    audit,
    usage,
  });
  const sessionPolicy = { ttlMs: config.SESSION_TTL_HOURS * 3_600_000, idleMs: config.SESSION_IDLE_MINUTES * 60_000 };
  const openSession = createSessionOpener({
    database,
    repo: repos.auth,
    users: repos.users,
    audit,
    policy: sessionPolicy,
  });
  const twoFactor = createTwoFactorService({
    database,
    repo: repos.twoFactor,
    users: repos.users,
    sessions: repos.auth,
    tokens: repos.apiTokens,
    audit,
    secrets,
    throttle,
    codes: createCodeThrottle({
      database,
      policy: {
        freeFailures: config.LOGIN_CODE_FREE_FAILURES,
        windowMs: config.LOGIN_CODE_WINDOW_MINUTES * 60_000,
        delayMs: config.LOGIN_CODE_DELAY_SECONDS * 1000,
        maxDelayMs: config.LOGIN_MAX_DELAY_MINUTES * 60_000,
      },
    }),
    // Through the first email channel's server, when there is one (the channels are created later here).
    mailUser: (to, mail) => notificationChannels.mailTo(to, mail),
    openSession,
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
  const googleSearchClient = createGoogleSearchClient({
    searchConsoleUrl: config.GOOGLE_SEARCH_CONSOLE_API_URL,
    siteVerificationUrl: config.GOOGLE_SITE_VERIFICATION_API_URL,
    tokenUrl: config.GOOGLE_TOKEN_URL,
    timeoutMs: config.GOOGLE_SEARCH_TIMEOUT_SECONDS * 1000,
  });
  const googleSearch = createGoogleSearchService({
    database,
    audit,
    usage,
    secrets,
    repo: repos.googleSearch,
    client: googleSearchClient,
  });
  const services = {
    audit,
    auth: createAuthService({
      database,
      repo: repos.auth,
      users: repos.users,
      audit,
      throttle,
      policy: sessionPolicy,
      twoFactor,
      passwordSignIn: {
        enabled: config.PASSWORD_SIGN_IN,
        breakGlassUsername: config.BREAK_GLASS_USERNAME ?? config.ADMIN_USERNAME,
      },
    }),
    twoFactor,
    oidc: createOidcService({
      database,
      repo: repos.oidc,
      users: repos.users,
      audit,
      secrets,
      openSession,
      twoFactor,
      settings: oidcSettingsOf(config),
      passwordSignIn: config.PASSWORD_SIGN_IN,
    }),
    apiTokens: createApiTokensService({ database, repo: repos.apiTokens, audit, users: repos.users }),
    sessions: createSessionsService({
      database,
      repo: repos.sessions,
      users: repos.users,
      audit,
      idleMs: sessionPolicy.idleMs,
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
    dnsTemplates: createDnsTemplatesService({ database, audit, usage, repo: repos.dnsTemplates }),
    launchProfiles: createLaunchProfilesService({ database, audit, usage, repo: repos.launchProfiles }),
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
    googleSearch,
  };

  // One Cloudflare client for every cloud: its request budget and account-id cache are per credentials, and
  // each call's proxy route comes from the cloud it acts for (see cloudflare-routing.ts).
  const cloudflareRouting = createCloudflareRouting();
  // Requests per account and minute, for a fleet run's budget chart (issue 47).
  const requestMinutes = createRequestMinutes(database.db);
  const cloudflare = createCloudflareClient({
    onSent: (key) => requestMinutes.sent(key),
    baseUrl: config.CLOUDFLARE_API_URL,
    timeoutMs: config.CLOUDFLARE_TIMEOUT_SECONDS * 1000,
    budget: {
      requests: config.CLOUDFLARE_BUDGET_PER_5_MIN,
      windowMs: config.CLOUDFLARE_BUDGET_WINDOW_SECONDS * 1000,
      interactiveReserve: config.CLOUDFLARE_INTERACTIVE_RESERVE,
      // Counted when sent, counted by Cloudflare when received: a small margin absorbs the difference.
      marginMs:
        config.CLOUDFLARE_BUDGET_MARGIN_MS ??
        Math.min(1000, Math.max(250, Math.ceil(config.CLOUDFLARE_BUDGET_WINDOW_SECONDS * 10))),
    },
    // Shared through the database on PostgreSQL, where API processes and workers spend the same accounts.
    budgetStore: (b) =>
      database.driver === 'postgres' ? createSharedRequestBudget(database, b) : createRequestBudget(b),
    dispatcherFor: cloudflareRouting.dispatcherFor,
    budgetContext: cloudflareRouting.budgetContext,
  });
  const cloudFlare = createCloudFlareService({
    cloudflare,
    routing: cloudflareRouting,
    domains: services.domains,
    clouds,
    proxies: services.proxies,
    audit,
    // A third of the call timeout for the proxy connection and handshake, so a dead proxy leaves time for the next.
    proxyTimeoutMs: Math.max(500, Math.ceil((config.CLOUDFLARE_TIMEOUT_SECONDS * 1000) / 3)),
    zoneLocks: createZoneLocks(database),
  });

  // Zone files (decision 043): one domain's BIND file, and a selection's as a zip made by a job.
  const zoneFile = createZoneFileService({ cloudFlare, domains: services.domains, audit });
  const zoneExports = createZoneFileExports({
    db,
    engine: () => jobEngine,
    zoneFile: () => zoneFile,
    routing: cloudflareRouting,
    audit,
    idsForFilter: (filter, limit) => repos.domains.listIds(filter, limit),
    budgetWaitMs: config.CLOUDFLARE_BUDGET_WINDOW_SECONDS * 3000 + 5000,
  });

  // Hosting panels: one client each, shared, so DirectAdmin's rejected-login memory covers every call.
  const directAdmin = createDirectAdminService({
    directAdmin: createDirectAdminClient({ timeoutMs: config.DIRECTADMIN_TIMEOUT_SECONDS * 1000 }),
    domains: services.domains,
    servers: services.servers,
    audit,
  });
  const ispManager = createIspManagerService({
    ispmanager: createIspManagerClient({ timeoutMs: config.ISPMANAGER_TIMEOUT_SECONDS * 1000 }),
    domains: services.domains,
    servers: services.servers,
    audit,
  });
  // Content snapshots (decision 078): what a content change replaces is kept, so Restore can put it back.
  const contentSnapshots = createContentSnapshotsService({
    repo: repos.contentSnapshots,
    ssh,
    domainsRepo: repos.domains,
    serversRepo: repos.servers,
    servers: services.servers,
    audit,
    secrets,
    limits: {
      dbBytes: config.CONTENT_SNAPSHOT_DB_KB * 1024,
      // One snapshot never holds more than its server may keep in all.
      snapshotBytes: Math.floor(
        Math.min(config.CONTENT_SNAPSHOT_MAX_MB, config.CONTENT_SNAPSHOT_SERVER_MB) * 1024 * 1024,
      ),
      serverBytes: Math.floor(config.CONTENT_SNAPSHOT_SERVER_MB * 1024 * 1024),
      maxFiles: config.CONTENT_SNAPSHOT_MAX_FILES,
      keepMs: config.CONTENT_SNAPSHOT_DAYS * 86_400_000,
    },
  });
  // The job registry names every kind; the engine runs them (in this process when JOB_WORKERS is on).
  const siteDeps = {
    ssh,
    domainsRepo: repos.domains,
    serversRepo: repos.servers,
    servers: services.servers,
    domains: services.domains,
    cloudFlare,
    snapshots: contentSnapshots,
    audit,
  };
  // IndexNow after content jobs, sitemaps and launches, for the brands that turn it on (decision 075).
  const indexNow = createIndexNowService({
    repo: repos.indexNow,
    client: createIndexNowClient({
      endpoint: config.INDEXNOW_ENDPOINT,
      timeoutMs: config.INDEXNOW_TIMEOUT_SECONDS * 1000,
    }),
    domainOf: (id) => repos.domains.findRow(id),
    brandOn: async (id) => (await repos.brands.findById(id))?.indexNow ?? false,
    // The key file in the site's root, through the content-file layer over SFTP (as Yandex's verification file).
    async writeRootFile(domainId, name, content) {
      const dir = await domainDirOf(siteDeps, domainId);
      await dir.fs.writeAtomic(`/${name}`, content, { maxBytes: 4096, mkdirs: false, label: 'the IndexNow key file' });
    },
  });
  const domainJobDeps = { ...siteDeps, indexNow };
  const jobRegistry = createJobRegistry([
    generateSitemapJob(domainJobDeps),
    copyContentFilesJob(domainJobDeps),
    replacementJob(domainJobDeps),
    parsingJob({
      ...domainJobDeps,
      proxies: services.proxies,
      limits: {
        concurrency: config.PARSER_CONCURRENCY,
        timeoutMs: config.PARSER_TIMEOUT_SECONDS * 1000,
        retries: config.PARSER_RETRIES,
        maxFileBytes: Math.floor(config.PARSER_MAX_FILE_MB * 1024 * 1024),
        maxJobBytes: Math.floor(config.PARSER_MAX_JOB_MB * 1024 * 1024),
        maxPages: config.PARSER_MAX_PAGES,
        jobTimeoutSeconds: config.PARSER_JOB_TIMEOUT_MINUTES * 60,
      },
    }),
    serversHealthCheckJob({ servers: services.servers, allIds: () => repos.servers.allIds() }),
    fleetPlanJob(() => fleet),
    fleetRunJob(() => fleet),
    importPlanJob(() => imports),
    importRunJob(() => imports),
    launchRunJob(() => launches, Math.max(config.JOB_CONCURRENCY, config.LAUNCH_BATCH_CONCURRENCY)),
    launchBatchPlanJob(() => launchBatches),
    launchBatchRunJob(() => launchBatches),
    zoneExports.job,
    proxiesHealthCheckJob({ proxies: services.proxies, allIds: () => repos.proxies.allIds() }),
    healthCycleJob(() => health),
    trafficCycleJob(() => traffic),
    healthCheckJob(() => health),
    alertsEvaluateJob(() => alerts),
    alertsDeliverJob(() => alerts, { ...DELIVERY_RETRY, delaySeconds: config.ALERTS_RETRY_SECONDS }),
    ...(opts.extraJobs ?? []),
  ]);
  const jobEngine = createJobEngine({
    database,
    log: opts.log,
    repo: repos.jobs,
    registry: jobRegistry,
    options: {
      workers: config.JOB_WORKERS,
      concurrency: config.JOB_CONCURRENCY,
      pollingIntervalSeconds: config.JOB_POLL_SECONDS,
      maintenanceIntervalSeconds: config.JOB_MAINTENANCE_SECONDS,
      expireGraceSeconds: config.JOB_EXPIRE_GRACE_SECONDS,
      heartbeatSeconds: config.JOB_HEARTBEAT_SECONDS,
      takeoverSeconds: Math.max(config.JOB_TAKEOVER_SECONDS, config.JOB_HEARTBEAT_SECONDS * 3),
      reconcileIntervalSeconds: Math.max(config.JOB_MAINTENANCE_SECONDS, 5),
      ...opts.jobOptions,
    },
  });
  // The plan engine (decision 084): every kind's run, pause, resume, retry and cancel, over the one plans table.
  const planEngine = createPlanEngine(repos.plans, { find: (id) => repos.jobs.find(id), engine: () => jobEngine });
  // Fleet operations: plans over many domains, run by the fleet jobs through the single-domain services.
  const fleet: FleetService = createFleetService({
    repo: repos.fleet,
    plans: planEngine,
    audit,
    routing: cloudflareRouting,
    cloudFlare,
    domains: services.domains,
    // "Fix all" of a health check reads and fixes through the health service (made further down).
    health: () => health,
    contentSnapshots,
    google: googleSearch,
    idsForFilter: (filter, limit) => repos.domains.listIds(filter as DomainFilter, limit),
    labels: {
      server: async (id) => (await services.servers.get(id)).IPAddress,
      brand: async (id) => (await brands.get(id)).name,
      registrar: async (id) => (await services.domainRegistrators.get(id)).name,
    },
    dnsTemplate: (id) => services.dnsTemplates.findById(id),
    imports: {
      findPlan: (id) => repos.imports.findPlan(id),
      doneItems: (id, after, n) => repos.imports.doneItems(id, after, n),
    },
    requests: {
      keyOf: async (cloudId) => credentialKey(await clouds.credentials(cloudId)),
      read: (keys, from, to) => requestMinutes.read(keys, from, to),
      perMinute: (config.CLOUDFLARE_BUDGET_PER_5_MIN * 60) / config.CLOUDFLARE_BUDGET_WINDOW_SECONDS,
      backgroundShare: 1 - config.CLOUDFLARE_INTERACTIVE_RESERVE,
    },
    options: {
      accountConcurrency: config.FLEET_ACCOUNT_CONCURRENCY,
      // A background call waits for its slot up to three budget windows (other workers of the account may take
      // the slots it wakes for); past that the domain's step fails with the wait.
      budgetWaitMs: config.CLOUDFLARE_BUDGET_WINDOW_SECONDS * 3000 + 5000,
    },
  });
  // The fleet as code (issue 45): desired-state files planned as fleet plans, and the export that writes them.
  const fleetState = createFleetStateService({
    repo: repos.fleet,
    fleet,
    firewallRules: repos.firewallRules,
    routing: cloudflareRouting,
    cloudFlare,
    domains: services.domains,
    idsForFilter: (filter, limit) => repos.domains.listIds(filter, limit),
    // An export call waits at most a budget window for each slot; the client pages, a page at a time.
    budgetWaitMs: config.CLOUDFLARE_BUDGET_WINDOW_SECONDS * 1000 + 5000,
  });
  const jobs = createJobsService({ repo: repos.jobs, domains: repos.domains, audit, engine: () => jobEngine });
  // One Namecheap client: its call budget is per account (endpoint + API user), across every registrator.
  const namecheap = createNamecheapClient({
    clientIp: config.NAMECHEAP_CLIENT_IP,
    timeoutMs: config.NAMECHEAP_TIMEOUT_SECONDS * 1000,
    callsPerMinute: config.NAMECHEAP_CALLS_PER_MINUTE,
    budgetWindowMs: config.NAMECHEAP_BUDGET_WINDOW_SECONDS * 1000,
  });
  const registrar = createRegistrarService({
    namecheap,
    registrators: services.domainRegistrators,
    contacts: services.domainRegistratorsContacts,
    domains: services.domains,
    cloudFlare,
    audit,
  });

  // Imports (decision 043): a Cloudflare account's zones, a panel's sites, a registrar account, planned then run.
  const imports: ImportsService = createImportsService({
    repo: repos.imports,
    plans: repos.plans,
    plansEngine: planEngine,
    audit,
    routing: cloudflareRouting,
    domains: services.domains,
    cloudFlare,
    directAdmin,
    ispManager,
    registrar,
    registrators: services.domainRegistrators,
    servers: services.servers,
    clouds: { email: async (id) => (await clouds.get(id)).email },
    budgetWaitMs: config.CLOUDFLARE_BUDGET_WINDOW_SECONDS * 3000 + 5000,
  });

  // One-click verification places its TXT record through the Cloudflare actions' own DNS code.
  // …and its verification file through the content-file layer.
  yandexWebmaster.wire({
    domains: services.domains,
    dns: cloudFlare as unknown as WebmasterDnsPort,
    files: createContentFilePort({ ssh, domains: services.domains, servers: services.servers, audit }),
  });
  // Google's verification the same ways: the TXT record through Cloudflare, the HTML file over SFTP (decision 077).
  googleSearch.wire({
    domains: services.domains,
    dns: cloudFlare as unknown as WebmasterDnsPort,
    files: createContentFilePort({
      ssh,
      domains: services.domains,
      servers: services.servers,
      audit,
      auditAction: 'google_verification_file',
    }),
  });
  // URLs held back past a day's recrawl quota go out on later days (decision 027).
  const drainTimer =
    config.YANDEX_RECRAWL_DRAIN_MINUTES > 0
      ? setInterval(() => void yandexWebmaster.drainRecrawlBacklog(), config.YANDEX_RECRAWL_DRAIN_MINUTES * 60_000)
      : undefined;
  drainTimer?.unref();
  const contentFiles = createContentFilesService({
    ssh,
    domains: services.domains,
    servers: services.servers,
    audit,
    snapshots: contentSnapshots,
    limits: {
      maxFileBytes: Math.floor(config.CONTENT_UPLOAD_MAX_FILE_MB * 1024 * 1024),
      maxFiles: config.CONTENT_UPLOAD_MAX_FILES,
      maxEditBytes: config.CONTENT_EDIT_MAX_KB * 1024,
    },
  });

  // Fleet health (issue 28, decision 045): the checks read through the single-domain services, so every call
  // keeps its budgets, proxies and refusals; the periodic job spends only its part of the fleet share.
  // Traffic (issue 47, decision 070): each domain's Cloudflare analytics, kept; the periodic read spends the fleet share.
  const traffic: TrafficService = createTrafficService({
    repo: repos.traffic,
    domains: services.domains,
    cloudFlare,
    background: (fn) => cloudflareRouting.background(config.CLOUDFLARE_BUDGET_WINDOW_SECONDS * 3000 + 5000, fn),
    options: { refreshHours: config.TRAFFIC_REFRESH_HOURS, maxDomainsPerRun: config.TRAFFIC_MAX_DOMAINS_PER_RUN },
  });

  const health: HealthService = createHealthService({
    database,
    repo: repos.health,
    checks: createHealthChecks({
      domains: services.domains,
      servers: services.servers,
      cloudFlare,
      registrar,
      lastSetThroughConsole: (domainId, action) => repos.health.lastSet(domainId, action),
      directAdmin,
      ispManager,
      contentFiles,
      proxies: services.proxies,
      cloudRegion: async (cloudId) => (await clouds.credentials(cloudId)).proxyRegionId,
      probe: (p, host) =>
        probeHttps(p, host, { port: config.HEALTH_SITE_PORT, timeoutMs: config.HEALTH_TIMEOUT_SECONDS * 1000 }),
      webmaster: yandexWebmaster,
      google: googleSearch,
      traffic: {
        fallPercentOfBrand: async (brandId) => (await brands.get(brandId)).trafficFallPercent,
        readState: (domainId) => repos.traffic.readState(domainId),
        days: (domainId, since, until) => repos.traffic.days(domainId, since, until),
      },
      acceptUntrustedCertificates: config.HEALTH_ACCEPT_UNTRUSTED_CERTS,
    }),
    fixes: createHealthFixes({
      domains: services.domains,
      cloudFlare,
      registrar,
      webmaster: yandexWebmaster,
      google: googleSearch,
    }),
    idsForFilter: (filter, limit) => repos.domains.listIds(filter as DomainFilter, limit),
    background: (fn) => cloudflareRouting.background(config.CLOUDFLARE_BUDGET_WINDOW_SECONDS * 3000 + 5000, fn),
    options: {
      cheapMinutes: config.HEALTH_CHEAP_MINUTES,
      fullHours: config.HEALTH_FULL_HOURS,
      cycleMinutes: config.HEALTH_CYCLE_MINUTES,
      maxDomainsPerRun: config.HEALTH_MAX_DOMAINS_PER_RUN,
      concurrency: config.HEALTH_CONCURRENCY,
      cloudflareCallsPerWindow: Math.floor(
        config.CLOUDFLARE_BUDGET_PER_5_MIN * (1 - config.CLOUDFLARE_INTERACTIVE_RESERVE) * config.HEALTH_BUDGET_SHARE,
      ),
      cloudflareWindowSeconds: config.CLOUDFLARE_BUDGET_WINDOW_SECONDS,
    },
  });

  // Alerts (issue 29, decision 046): channels hold credentials like every other; problems come from the tables
  // the periodic checks write; each message goes out as a durable job.
  const alertDestinations = { allowPrivate: config.ALERT_ALLOW_PRIVATE_DESTINATIONS };
  const notificationChannels = createNotificationChannelsService({
    database,
    audit,
    usage,
    secrets,
    repo: repos.notificationChannels,
    smtp: createSmtpClient({ destinations: alertDestinations }),
    webhook: createWebhookClient({ destinations: alertDestinations }),
    telegram: createTelegramClient({ destinations: alertDestinations }),
    logDelivery: (e) =>
      repos.alerts.log({
        deliveryId: e.deliveryId,
        channelId: e.channel.id,
        channelName: e.channel.name,
        channelKind: e.channel.kind,
        event: e.event,
        outcome: e.outcome,
        answer: e.answer,
      }),
  });
  const alertRules = createAlertRulesService({ database, audit, usage, repo: repos.alertRules, brands });
  const alerts: AlertsService = createAlertsService({
    database,
    repo: repos.alerts,
    rules: repos.alertRules,
    channels: notificationChannels,
    sources: createAlertSources(db),
    idsForFilter: (filter) => repos.domains.listIds(filter as DomainFilter, FLEET_PLAN_MAX),
    enqueueDelivery: async (deliveryId) =>
      (await jobEngine.enqueue(ALERTS_DELIVER_JOB, { deliveryId }, { createdBy: 'alerts' })).id,
    groupSeconds: config.ALERTS_GROUP_SECONDS,
    consoleUrl: config.ALERTS_CONSOLE_URL,
    deliveryRetries: DELIVERY_RETRY.limit,
  });

  const parsing = createParsingService({ jobs, domains: services.domains, contentFiles, proxies: services.proxies });

  // Launches (issue 27, decision 044): the stages chain the services above; nothing calls a provider itself.
  const launches: LaunchesService = createLaunchesService({
    repo: repos.launches,
    jobsRepo: repos.jobs,
    engine: () => jobEngine,
    audit,
    stageDeps: {
      domains: services.domains,
      servers: services.servers,
      cloudFlare,
      registrar,
      directAdmin,
      ispManager,
      webmaster: yandexWebmaster,
      google: googleSearch,
      files: domainJobDeps,
      contentFiles,
      parsing,
      jobState: (id) => repos.jobs.find(id),
      cloudEmail: async (id) => (await clouds.get(id)).email,
    },
    wait: {
      firstDelayMs: config.LAUNCH_WAIT_FIRST_SECONDS * 1000,
      maxDelayMs: config.LAUNCH_WAIT_MAX_SECONDS * 1000,
      limitMs: config.LAUNCH_WAIT_LIMIT_MINUTES * 60_000,
    },
    background: (fn) => cloudflareRouting.background(config.CLOUDFLARE_BUDGET_WINDOW_SECONDS * 3000 + 5000, fn),
    profile: (id) => services.launchProfiles.get(id),
    dnsTemplate: (id) => services.dnsTemplates.findById(id),
    indexNow,
    // "A launch finished" for the alert rules that ask for it: one event per ending, never resolved.
    finished: (f) =>
      alerts.event({
        key: `launch:${f.launchId}:${f.state}:${Date.now()}`,
        event: 'launch_finished',
        severity: f.state === 'completed' ? 'info' : 'warning',
        title:
          f.state === 'completed'
            ? `Launch #${f.launchNo} of ${f.domainName} is live`
            : `Launch #${f.launchNo} of ${f.domainName} failed`,
        detail: f.error,
        subject: { kind: 'launch', id: f.launchId, name: f.domainName },
        domainId: f.domainId,
      }),
  });
  const launchBatches: LaunchBatchesService = createLaunchBatchesService({
    repo: repos.launches,
    launches,
    registrar,
    plans: planEngine,
    audit,
    concurrency: config.LAUNCH_BATCH_CONCURRENCY,
    pollMs: 1000,
  });

  return {
    config,
    database,
    jobEngine,
    /** Starts the job engine and, where workers run, the periodic jobs. Separate so tests opt in. */
    async startJobs(o: { periodic?: boolean } = {}) {
      await jobEngine.start();
      if (o.periodic !== false && config.JOB_WORKERS) {
        jobEngine.schedule('servers.health-check', config.SERVER_HEALTH_CHECK_MINUTES);
        jobEngine.schedule('proxies.health-check', config.PROXY_CHECK_MINUTES);
        jobEngine.schedule(HEALTH_CYCLE_JOB, config.HEALTH_CYCLE_MINUTES);
        jobEngine.schedule(TRAFFIC_CYCLE_JOB, config.TRAFFIC_CYCLE_MINUTES);
        jobEngine.schedule(ALERTS_EVALUATE_JOB, config.ALERTS_EVALUATE_MINUTES);
      }
    },
    secrets,
    usage,
    ssh,
    repos,
    cloudflare,
    namecheap,
    services: {
      ...services,
      cloudFlare,
      directAdmin,
      ispManager,
      jobs,
      registrar,
      contentFiles,
      contentSnapshots,
      parsing,
      fleet,
      fleetState,
      imports,
      launches,
      launchBatches,
      zoneFile,
      zoneExports,
      health,
      traffic,
      notificationChannels,
      alertRules,
      alerts,
      dashboard: createDashboardService({ repo: repos.dashboard, healthSummary: () => health.summary() }),
      search: createSearchService({ repo: repos.search }),
    },
    yandexWebmasterClient,
    googleSearchClient,
    /** How the auth guard knows a caller: sessions and personal API tokens. */
    callers: {
      session: (authorization) => services.auth.authenticate(authorization),
      tokens: {
        fromHeader: apiTokenFromHeader,
        authenticate: (token, ip) => services.apiTokens.authenticate(token, ip),
        mayCall: tokenMayCall,
      },
    } satisfies CallerAuthenticator as CallerAuthenticator,
    /** Stops the jobs (steps in flight get `graceMs` to finish), then the SSH pool and the database. */
    async close(graceMs = 10_000) {
      if (drainTimer) clearInterval(drainTimer);
      await jobEngine.stop(true, graceMs).catch(() => undefined);
      ssh.closeAll();
      await zoneFile.close();
      await requestMinutes.close();
      await database.close();
    },
  };
}
export type Container = Awaited<ReturnType<typeof createContainer>>;
