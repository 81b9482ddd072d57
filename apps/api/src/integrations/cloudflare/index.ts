export { createCloudflareClient } from './cloudflare-client.ts';
export { DnsBatchPartError, RULE_READ_ONLY } from './cloudflare-client.ts';
export type { CloudflareClient, CloudflareClientOptions } from './cloudflare-client.ts';
export { createRequestBudget } from './request-budget.ts';
export type { BudgetPriority, BudgetTake, RequestBudget } from './request-budget.ts';
export type * from './types.ts';
