export { createCloudflareClient } from './cloudflare-client.ts';
export { DnsBatchPartError, RULE_READ_ONLY } from './cloudflare-client.ts';
export type { CloudflareClient, CloudflareClientOptions } from './cloudflare-client.ts';
export { createRequestBudget, createSharedRequestBudget } from './request-budget.ts';
export type { BudgetPriority, BudgetTake, RequestBudget, RequestBudgetOptions } from './request-budget.ts';
export type * from './types.ts';
