import type { Actor } from '../http/context.ts';
import { ForbiddenError, ValidationError } from '../http/errors.ts';

/**
 * One field that says where a stored credential is sent (a panel URI, an SMTP host, a Bot API address), with the
 * credential that goes there. Decision 058.
 */
export type CredentialDestination = {
  /** The destination field's name in the input, and its label in messages. */
  field: string;
  label: string;
  /** The credential's field name in the input, and its label in messages. */
  credentialField: string;
  credentialLabel: string;
  /** The value sent (undefined: not sent) and the value stored. */
  next: unknown;
  current: unknown;
  /** The credential was sent in this request (a new value or null to clear it; the mask or nothing is not). */
  credentialGiven: boolean;
  /** A credential is stored now. */
  credentialStored: boolean;
  /** The credential is never typed in: the write makes a new one (a webhook's signing secret). */
  rotates?: boolean;
};

export const TOKEN_DESTINATION_MESSAGE = 'An API token cannot change where a stored credential is sent';

/**
 * Changing where a stored credential is sent needs the credential typed again in the same request, so whoever
 * may edit a record but not read its secret cannot send the secret to an address of their choosing; a personal
 * API token may not change such a field at all (token-limits.ts lists what else tokens may not do).
 */
export function assertCredentialDestinations(actor: Actor, list: CredentialDestination[]) {
  // Clearing a destination sends the credential nowhere (a later new one is a change like any other).
  const changed = list.filter((d) => norm(d.next) !== null && norm(d.next) !== norm(d.current));
  if (!changed.length) return;
  if (actor.tokenId) {
    const names = changed.map((d) => d.field).join(', ');
    throw new ForbiddenError(`${TOKEN_DESTINATION_MESSAGE} (${names})`, 'token_destination_change');
  }
  // One message per credential, naming every destination of it that changed ("the IP address and port").
  const moved = new Map<string, { credentialLabel: string; labels: string[] }>();
  for (const d of changed) {
    if (!d.credentialStored || d.credentialGiven || d.rotates) continue;
    const m = moved.get(d.credentialField) ?? { credentialLabel: d.credentialLabel, labels: [] };
    m.labels.push(d.label);
    moved.set(d.credentialField, m);
  }
  const fields: Record<string, string> = {};
  for (const [field, m] of moved)
    fields[field] = `Enter the ${m.credentialLabel} again to change the ${listOf(m.labels)}`;
  if (Object.keys(fields).length)
    throw new ValidationError(
      'Enter the stored credential again to change where it is sent',
      fields,
      'credential_required',
    );
}

const norm = (v: unknown) => (v === '' || v === undefined ? null : v);

/** "host", "host and port", "host, port and security". */
const listOf = (labels: string[]) =>
  labels.length > 1 ? `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]}` : (labels[0] ?? '');
