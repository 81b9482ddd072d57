export { GOOGLE_SIM_SCOPES, parseSiteUrl, startGoogleSearchSim } from './server.ts';
export type {
  GoogleSearchFailure,
  GoogleSearchSim,
  GoogleSearchSimOptions,
  PermissionLevel,
  SimAnalyticsRow,
  SimProperty,
  SimServiceAccountKey,
  SimSitemap,
} from './server.ts';
