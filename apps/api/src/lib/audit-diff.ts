import { REDACTED, SECRET_FIELDS } from '@fleetdesk/contract';

const SECRET_NAMES = new Set<string>(SECRET_FIELDS);
/** A secret field by name, or a sealed column (`…Enc`, as a snapshot of a row carries it). */
const isSecret = (k: string) => SECRET_NAMES.has(k) || /Enc$/.test(k);

/** Field-by-field differences between two snapshots, secrets redacted. Unchanged fields are left out. */
export function auditDiff(
  before: Record<string, unknown> | null | undefined,
  after: Record<string, unknown> | null | undefined,
): Record<string, { before: unknown; after: unknown }> {
  const out: Record<string, { before: unknown; after: unknown }> = {};
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const k of keys) {
    const b = before?.[k];
    const a = after?.[k];
    if (JSON.stringify(b) === JSON.stringify(a)) continue;
    out[k] = isSecret(k)
      ? { before: b == null ? null : REDACTED, after: a == null ? null : REDACTED }
      : { before: b ?? null, after: a ?? null };
  }
  return out;
}

/** Deep copy with every secret-named key replaced, for audit `details`. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        isSecret(k) || /authorization|x-auth-key/i.test(k) ? REDACTED : redact(v),
      ]),
    );
  }
  return value;
}
