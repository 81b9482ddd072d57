export { createCloudflareClient } from './cloudflare-client.ts';
export type { CloudflareClient, CloudflareClientOptions } from './cloudflare-client.ts';
export { createRequestBudget } from './request-budget.ts';
export type { RequestBudget } from './request-budget.ts';
export type * from './types.ts';
