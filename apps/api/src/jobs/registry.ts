import { type JobDefinition } from '../lib/jobs.ts';

export {
  defineJob,
  PermanentJobError,
  RetryLaterError,
  type JobContext,
  type JobDefinition,
  type RetryPolicy,
} from '../lib/jobs.ts';

/** The registry: every job kind, by name. A kind cannot be registered twice. */
export function createJobRegistry(defs: JobDefinition[] = []) {
  const map = new Map<string, JobDefinition>();
  const registry = {
    add(def: JobDefinition) {
      if (map.has(def.kind)) throw new Error(`Job kind ${def.kind} is already registered`);
      map.set(def.kind, def);
      return registry;
    },
    get: (kind: string) => map.get(kind),
    all: () => [...map.values()],
  };
  for (const d of defs) registry.add(d);
  return registry;
}
export type JobRegistry = ReturnType<typeof createJobRegistry>;
