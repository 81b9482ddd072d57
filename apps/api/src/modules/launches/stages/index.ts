import type { LaunchStageKey } from '@fleetdesk/contract';
import { dnsStage, sslStage, wafStage, zoneActiveStage, zoneStage } from './cloudflare.ts';
import { domainStage, nameServersStage, registerStage } from './registration.ts';
import { contentStage, siteStage, sitemapStage } from './site.ts';
import type { Stage } from './types.ts';
import { googleSitemapStage, googleVerifyStage } from './google.ts';
import { yandexRecrawlStage, yandexSitemapStage, yandexVerifyStage } from './yandex.ts';

export { ensureDomain } from './registration.ts';
export { renderRecords } from './cloudflare.ts';
export * from './types.ts';

/** Every stage, in LAUNCH_STAGES' order (a test keeps the two the same). */
export const STAGES: readonly Stage[] = [
  domainStage,
  registerStage,
  zoneStage,
  nameServersStage,
  zoneActiveStage,
  dnsStage,
  sslStage,
  wafStage,
  siteStage,
  contentStage,
  sitemapStage,
  yandexVerifyStage,
  yandexSitemapStage,
  yandexRecrawlStage,
  googleVerifyStage,
  googleSitemapStage,
];

export const stageOf = (key: LaunchStageKey) => STAGES.find((s) => s.key === key)!;
