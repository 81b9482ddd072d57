export { rateLimitFromEnv, startCloudflareSim } from './server.ts';
export type { AddAccountInput, CloudflareFailure, CloudflareSim, CloudflareSimOptions } from './server.ts';
export { seedCloudflareDemo } from './demo-seed.ts';
export type { CloudflareDemoSeed } from './demo-seed.ts';
export type {
  CloudflareSimState,
  PurgeLogEntry,
  RequestLogEntry,
  SimAccount,
  SimDnsRecord,
  SimRule,
  SimRuleset,
  SimZone,
  SslValue,
  Tls13Value,
  ZonePlan,
  ZoneStatus,
} from './sim-state.ts';
export type { CfMessage, Envelope, ResultInfo } from './envelope.ts';
export { ANALYTICS_LIMITS } from './analytics.ts';
export type { TrafficShape } from './analytics.ts';
