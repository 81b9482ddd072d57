import dns from 'node:dns/promises';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector } from 'undici';

/**
 * Where alert messages may go (decision 058). By default only public unicast addresses: a name is resolved (every
 * address), each address is checked, and the connection is made to the checked address, so a name that resolves
 * elsewhere between the check and the connection (DNS rebinding) gains nothing. Every connection is checked,
 * whether a first try, a retry or a redirect. `ALERT_ALLOW_PRIVATE_DESTINATIONS` lifts it for internal receivers.
 */
export type DestinationPolicy = { allowPrivate: boolean };

export class DestinationRefusedError extends Error {
  readonly code = 'EDESTINATION';
  constructor(readonly host: string) {
    super(`${host} is a loopback, private or link-local address, which alert channels may not reach`);
  }
}

/** A public unicast address: not loopback, private, link-local, unique-local, unspecified, CGNAT, reserved, … */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let a = ipaddr.parse(address);
  if (a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress()) a = (a as ipaddr.IPv6).toIPv4Address();
  return a.range() === 'unicast';
}

/**
 * The address to connect to for `host` (a name or an address; IPv6 with or without brackets): the first address
 * it resolves to, once every address it resolves to passed the policy. A DestinationRefusedError names the host.
 */
export async function checkedAddress(
  host: string,
  policy: DestinationPolicy,
): Promise<{ address: string; family: number }> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const found = net.isIP(bare) ? [{ address: bare, family: net.isIP(bare) }] : await dns.lookup(bare, { all: true });
  if (!found.length) throw Object.assign(new Error(`${bare} has no address`), { code: 'ENOTFOUND' });
  if (!policy.allowPrivate && found.some((f) => !isPublicAddress(f.address))) throw new DestinationRefusedError(bare);
  return found[0]!;
}

/**
 * An undici dispatcher whose every new connection goes to an address checked by `checkedAddress` (TLS still
 * verifies the name). Kept-alive connections were checked when made.
 */
export function destinationAgent(policy: DestinationPolicy, o: { connectTimeoutMs?: number } = {}) {
  const connect = buildConnector({ timeout: o.connectTimeoutMs ?? 10_000 });
  return new Agent({
    connect: (opts, callback) => {
      checkedAddress(opts.hostname, policy).then(
        ({ address }) => connect({ ...opts, hostname: address }, callback),
        (err: Error) => callback(err, null),
      );
    },
  });
}

/** The refusal behind a failed fetch, if that is why it failed (undici wraps connection errors in `cause`). */
export function refusalOf(err: unknown): DestinationRefusedError | undefined {
  for (let e = err as { cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    if (e instanceof DestinationRefusedError) return e;
  }
  return undefined;
}

/** Only the host of a URL, for messages: never its user, password, path or query. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the address';
  }
}
