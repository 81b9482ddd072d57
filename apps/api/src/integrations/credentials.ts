import { CREDENTIAL_MESSAGES, isPasswordSafe, isTokenSafe, isUserSafe } from '@fleetdesk/contract';
import { UpstreamError } from '../http/errors.ts';

const checks = { token: isTokenSafe, user: isUserSafe, password: isPasswordSafe };

/**
 * Refuses, before any connection, a credential that cannot travel in a header or URL (issue 26): a value saved
 * before the forms checked it would otherwise surface as "could not be reached". Names the provider and the field.
 */
export function refuseUnsendable(
  provider: string,
  label: string,
  value: string | null | undefined,
  kind: keyof typeof checks,
): void {
  if (value == null || checks[kind](value)) return;
  const what = CREDENTIAL_MESSAGES[kind].replace(/^Must/, 'it must').replace(/^Must not/, 'it must not');
  throw new UpstreamError(provider, `${provider}: the ${label} cannot be sent (${what}); edit it and save again`, {
    code: 'upstream_credential_invalid',
  });
}
