import type { LaunchLink, LaunchSettings, LaunchStageKey } from '@fleetdesk/contract';
import type { Actor } from '../../../http/context.ts';
import type { DomainJobDeps } from '../../content-files/domain-site.ts';
import type { ContentFilesService } from '../../content-files/content-files.service.ts';
import type { ParsingService } from '../../jobs/parsing.service.ts';
import type { CloudFlareService } from '../../cloud-flare/cloud-flare.service.ts';
import type { DirectAdminService } from '../../direct-admin/direct-admin.service.ts';
import type { RegistrarService } from '../../domain-registrators/registrar.service.ts';
import type { DomainsService } from '../../domains/domains.service.ts';
import type { IspManagerService } from '../../ispmanager/ispmanager.service.ts';
import type { ServersService } from '../../servers/servers.service.ts';
import type { YandexWebmasterService } from '../../yandex-webmaster/yandex-webmaster.service.ts';
import type { GoogleSearchService } from '../../google-search/google-search.service.ts';

/** The existing services a launch chains; a stage never calls a provider itself. */
export type LaunchDeps = {
  domains: Pick<DomainsService, 'get' | 'create' | 'update' | 'idsByNames' | 'getFirewallRules' | 'saveFirewallRules'>;
  servers: Pick<ServersService, 'get'>;
  cloudFlare: Pick<
    CloudFlareService,
    | 'createZone'
    | 'linkZone'
    | 'zoneStatus'
    | 'zoneInfo'
    | 'listDnsRecords'
    | 'changeDnsRecords'
    | 'getSetting'
    | 'setSsl'
    | 'setTls13'
    | 'updateFirewallRules'
    | 'firewallRulesState'
  >;
  registrar: Pick<
    RegistrarService,
    'availability' | 'inAccount' | 'register' | 'domainState' | 'setNameServers' | 'registrationPrice'
  >;
  directAdmin: Pick<DirectAdminService, 'domainInfo' | 'createDomain'>;
  ispManager: Pick<IspManagerService, 'siteInfo' | 'createSite'>;
  webmaster: Pick<
    YandexWebmasterService,
    | 'domainHost'
    | 'verifyThroughDns'
    | 'verifyThroughFile'
    | 'verification'
    | 'userSitemaps'
    | 'addUserSitemap'
    | 'recrawl'
  >;
  google: Pick<GoogleSearchService, 'get' | 'state' | 'addProperty' | 'verify' | 'sitemaps' | 'submitSitemap'>;
  /** The content files' SSH side (copy, sitemap), shared with the domain jobs. */
  files: DomainJobDeps;
  contentFiles: Pick<ContentFilesService, 'dirInfo' | 'createDomainDir'>;
  /** Parsing a URL is the existing parsing job; the content stage starts it and waits for it. */
  parsing: Pick<ParsingService, 'start'>;
  jobState: (jobId: string) => Promise<{ state: string; error: string | null; jobNo: number } | undefined>;
  /** A cloud's e-mail, for sentences. */
  cloudEmail: (cloudId: string) => Promise<string>;
};

export type LaunchWaitOptions = {
  /** First pause between checks; it doubles up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** How long a stage waits in all before it fails (and can be retried). */
  limitMs: number;
};

export type StageRunContext = {
  launchId: string;
  domainName: string;
  /** Set once the domain stage has run (or found the domain). */
  domainId: string | null;
  input: LaunchSettings;
  confirmed: boolean;
  /** The operator confirmed the changes to an existing console domain's settings. */
  settingsConfirmed: boolean;
  actor: Actor;
  signal: AbortSignal;
  deps: LaunchDeps;
  /**
   * Checks until `check` answers a value, with a bounded back-off shown on the stage (what it waits for, since
   * when, next check); past the limit the stage fails with what it waited for.
   */
  wait<T>(waitingFor: string, check: () => Promise<T | null>): Promise<T>;
  /** A sentence of progress inside a long stage (a copy). */
  note(detail: string): Promise<void>;
};

export type StagePlanContext = Omit<
  StageRunContext,
  'wait' | 'note' | 'signal' | 'actor' | 'confirmed' | 'settingsConfirmed'
> & {
  actor: Actor;
  confirmCostly: boolean;
};

export type StageOutcome = {
  state: 'done' | 'already_done' | 'skipped' | 'needs_confirmation';
  detail: string;
  links?: LaunchLink[];
};
export type PlanOutcome = {
  outcome: 'run' | 'skip' | 'done' | 'blocked' | 'confirm';
  detail: string;
  /** A held console domain not at our registrator: it may be registered on its own, never as this step. */
  registerAlone?: boolean;
};

export type Stage = {
  key: LaunchStageKey;
  plan(ctx: StagePlanContext): Promise<PlanOutcome>;
  run(ctx: StageRunContext & { domainId: string }): Promise<StageOutcome>;
};

export const done = (detail: string, links?: LaunchLink[]): StageOutcome => ({ state: 'done', detail, links });
export const already = (detail: string, links?: LaunchLink[]): StageOutcome => ({
  state: 'already_done',
  detail: `Already done: ${detail}`,
  links,
});
export const skipped = (detail: string): StageOutcome => ({ state: 'skipped', detail });

/** Web paths of what a launch creates (the console's own pages and the site's sitemap). */
export const linkTo = {
  domain: (id: string): LaunchLink => ({ label: 'Domain', href: `/domains/${id}?tab=general` }),
  cloud: (id: string): LaunchLink => ({ label: 'Cloudflare zone', href: `/domains/${id}?tab=cloud` }),
  panel: (id: string, panel: 'direct-admin' | 'isp-manager'): LaunchLink => ({
    label: panel === 'direct-admin' ? 'DirectAdmin site' : 'ISPmanager site',
    href: `/domains/${id}?tab=${panel}`,
  }),
  files: (id: string): LaunchLink => ({ label: 'Content files', href: `/domains/${id}/edit-content-files` }),
  sitemap: (name: string): LaunchLink => ({ label: 'sitemap.xml', href: `https://${name}/sitemap.xml` }),
  yandex: (id: string): LaunchLink => ({ label: 'Yandex Webmaster host', href: `/domains/${id}?tab=yandex-webmaster` }),
  google: (id: string): LaunchLink => ({ label: 'Google Search Console', href: `/domains/${id}?tab=google-search` }),
};
