import type { Executor } from '../db/client.ts';
import { ConflictError } from '../http/errors.ts';

/** How one kind of record uses another: a count and a few examples to name. */
export type Usage = { what: string; count: number; examples: string[] };
export type UsageCheck = (id: string, ex?: Executor) => Promise<Usage | null>;

/** 'proxies' → 'proxy', 'domains' → 'domain': enough for the plural names the registry is given. */
export const singular = (plural: string) =>
  plural.endsWith('ies') ? `${plural.slice(0, -3)}y` : plural.endsWith('s') ? plural.slice(0, -1) : plural;

/**
 * Who refers to what. Modules that hold references register a check for the entity they point at;
 * the referred-to entity's service asks before deleting. New referrers need no change to the referred service.
 */
export function createUsageRegistry() {
  const checks = new Map<string, UsageCheck[]>();
  return {
    register(entity: string, check: UsageCheck) {
      checks.set(entity, [...(checks.get(entity) ?? []), check]);
    },
    async usagesOf(entity: string, id: string, ex?: Executor): Promise<Usage[]> {
      const found = await Promise.all((checks.get(entity) ?? []).map((c) => c(id, ex)));
      return found.filter((u): u is Usage => !!u && u.count > 0);
    },
    /** 409 naming each kind of user, how many, and the first few. */
    async assertUnused(entity: string, id: string, label: string, ex?: Executor) {
      const usages = await this.usagesOf(entity, id, ex);
      if (!usages.length) return;
      const parts = usages.map((u) => {
        const more = u.count > u.examples.length ? `, and ${u.count - u.examples.length} more` : '';
        return `${u.count} ${u.count === 1 ? singular(u.what) : u.what} (${u.examples.join(', ')}${more})`;
      });
      throw new ConflictError(
        `This ${label} cannot be deleted: it is used by ${parts.join(' and ')}`,
        undefined,
        'in_use',
      );
    },
  };
}
export type UsageRegistry = ReturnType<typeof createUsageRegistry>;
