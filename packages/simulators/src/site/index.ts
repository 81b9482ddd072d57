export { contentTypeOf, generatedSite, startSiteServer, tinyPng } from './site-server.ts';
export type { SiteAnswer, SiteOptions, SiteServer } from './site-server.ts';
export { demoSiteRoutes } from './demo-site.ts';
