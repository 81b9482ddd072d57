import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Container } from '../container.ts';
import {
  attachDemoNamecheap,
  attachDemoPanels,
  attachDemoSsh,
  checkDemoInfrastructure,
  startDemoProviders,
} from './providers.ts';
import { seedDemo } from './seed.ts';
import { attachDemoParsing } from './seed-parsing.ts';
import { seedDemoFleet } from './seed-fleet.ts';
import { seedDemoImportPlans } from './seed-imports.ts';
import { seedDemoLaunches } from './seed-launches.ts';
import { attachDemoAlerts } from './seed-alerts.ts';
import { systemActor } from '../http/context.ts';
import { DEMO_SSO_ACCOUNTS, DEMO_SSO_NAME, attachDemoSso, startDemoSso } from './sso.ts';

/**
 * Demo mode in one place: its simulated providers, the configuration that points the console at them, and the
 * seed. Only the entry point loads this folder, with a dynamic import, so production never loads the simulators.
 */
export async function startDemo(config: Config) {
  const providers = await startDemoProviders(config.DATA_DIR);
  const sso = await startDemoSso(config);
  return {
    providers,
    // Demo mode talks to its own simulators; nothing leaves the machine.
    config: {
      ...config,
      CLOUDFLARE_API_URL: providers.cloudflare.url,
      YANDEX_WEBMASTER_API_URL: providers.yandexWebmaster.url,
      INDEXNOW_ENDPOINT: providers.indexNow.url,
      GOOGLE_SEARCH_CONSOLE_API_URL: providers.googleSearch.url,
      GOOGLE_SITE_VERIFICATION_API_URL: providers.googleSearch.siteVerificationUrl,
      GOOGLE_TOKEN_URL: providers.googleSearch.tokenUrl,
      PROXY_CHECK_URL: `http://127.0.0.1:${config.PORT}/healthz`,
      NAMECHEAP_CLIENT_IP: config.NAMECHEAP_CLIENT_IP ?? '127.0.0.1',
      // The health checks reach the demo's HTTPS sites (self-signed) through the demo proxy.
      HEALTH_SITE_PORT: providers.healthSite.port,
      HEALTH_ACCEPT_UNTRUSTED_CERTS: true,
      // Single sign-on through a local OpenID provider; password sign-in stays on.
      ...sso?.config,
      // Alerts read problems every 6 s and group for 3 s, so the demo's inbox fills while one watches.
      ALERTS_EVALUATE_MINUTES: 0.1,
      ALERTS_GROUP_SECONDS: 3,
      // The demo's zones turn active and its Yandex hosts verify within seconds: a launch looks again every 2 s
      // (doubling to 8 s), not after 15 s, so the timeline moves while one watches.
      LAUNCH_WAIT_FIRST_SECONDS: 2,
      LAUNCH_WAIT_MAX_SECONDS: 8,
      // The demo's SMTP catcher and Telegram simulator listen on loopback.
      ALERT_ALLOW_PRIVATE_DESTINATIONS: true,
      ALERTS_CONSOLE_URL: config.ALERTS_CONSOLE_URL ?? `http://127.0.0.1:${config.PORT}`,
    } satisfies Config,
    /** Seeds a new data directory, then points the seeded rows at this run's simulators (their ports change). */
    async prepare(c: Container, log: FastifyBaseLogger) {
      await seedDemo(c, providers, log);
      await attachDemoSsh(c, providers);
      await attachDemoNamecheap(c, providers);
      await attachDemoPanels(c, providers);
      // Before the jobs start: the first health checks read the servers' status.
      await checkDemoInfrastructure(c);
      if (sso) await attachDemoSso(c, sso.sim.issuer);
      await attachDemoAlerts(c, providers);
    },
    /** Once the job engine runs: what the demo queues at start (a first parse of the parsing example). */
    async afterJobs(c: Container, log: FastifyBaseLogger) {
      await attachDemoParsing(c, providers);
      seedDemoFleet(c, log);
      seedDemoImportPlans(c, log, systemActor('admin'));
      seedDemoLaunches(c, log);
    },
    banner:
      `  Simulated providers: Cloudflare ${providers.cloudflare.url}, Namecheap ${providers.namecheap.url}, ` +
      `Yandex Webmaster ${providers.yandexWebmaster.url}, IndexNow ${providers.indexNow.url}, Google Search Console ${providers.googleSearch.url}, SSH hosts 127.0.0.1:${providers.sshHost.port} and ` +
      `127.0.0.1:${providers.sshHost2.port}, proxies ${providers.proxies.map((x) => x.url).join(', ')}, DirectAdmin ${providers.directAdmin.url}, ISPmanager ${providers.ispManager.url}, ` +
      `SMTP catcher 127.0.0.1:${providers.smtp.port} (the Alerts screen's Demo inbox), Telegram ${providers.telegram.url}\n` +
      (sso
        ? `  Single sign-on: "Sign in with ${DEMO_SSO_NAME}" (${sso.sim.issuer}), accounts ` +
          `${DEMO_SSO_ACCOUNTS.map((a) => `${a.preferred_username} / ${a.password}`).join(', ')}\n`
        : ''),
    close: async () => {
      await providers.close();
      await sso?.sim.close();
    },
  };
}
export type Demo = Awaited<ReturnType<typeof startDemo>>;
