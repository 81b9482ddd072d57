/**
 * Provider error codes in the operator's words (issue 47): a reason such as "Cloudflare: 7003 Could not route to
 * /client/v4/zones/…" or "Namecheap 2019166: Domain not found" reads as what it means and what to do, and the
 * provider's own words stay in a detail line. Codes from docs/integrations (cloudflare.md §2, namecheap.md §3)
 * and from what the providers answer in practice; an unknown code keeps the provider's text as it is.
 */

/** Cloudflare's v4 error codes (`errors[].code`). */
export const CLOUDFLARE_CODES: Readonly<Record<number, string>> = {
  1001: 'Cloudflare does not know this zone id: link the domain to its zone again or create one',
  1004: 'Cloudflare refused the DNS record as invalid: check its name, type and content',
  1061: 'The zone already exists at Cloudflare: link the domain to that zone instead of creating one',
  6003: "Cloudflare could not read the credentials: enter the cloud's API token (or email and global API key) again",
  6111: "Cloudflare could not read the credentials: enter the cloud's API token (or email and global API key) again",
  7000: 'Cloudflare has no such address: the zone or record it names is gone; link the domain to its zone again',
  7003: 'The zone no longer exists at Cloudflare: link the domain to its new zone or create one',
  9106: 'Cloudflare got no credentials: give the cloud an API token or an email and global API key',
  9109: "Cloudflare refused the credentials: check the cloud's API token and its permissions",
  10000: "Cloudflare refused the credentials: check the cloud's API token and its permissions",
  10003: "The zone has no WAF rules yet at Cloudflare: push the domain's rules to create them",
  81044: "The record no longer exists at Cloudflare: reload the zone's records and try again",
  81057: 'The record already exists at Cloudflare: nothing to add; edit the existing record instead',
  81058: 'The record already exists at Cloudflare: nothing to add; edit the existing record instead',
};

const NAMECHEAP_WHITELIST =
  "Namecheap refused the console's address: add the console's IP address (NAMECHEAP_CLIENT_IP) to the account's API whitelist";
const NAMECHEAP_SIDE = 'Namecheap failed on its side: try again later';

/** Namecheap's `Errors/Error/@Number`. */
export const NAMECHEAP_CODES: Readonly<Record<number, string>> = {
  500000: 'Namecheap is limiting the calls: the console tries again later',
  1011102: "Namecheap refused the API key: check the registrator's API user and key, and that API access is on",
  1011150: NAMECHEAP_WHITELIST,
  1017150: NAMECHEAP_WHITELIST,
  1017105: NAMECHEAP_WHITELIST,
  1017101: "Namecheap has disabled the registrator's API user: sign in at Namecheap to unlock it",
  2011169: 'Namecheap checks at most 50 domains at once: check fewer',
  2011170: 'Namecheap refused the promotion code: remove it or enter a valid one',
  2016166: 'The domain belongs to another Namecheap account: pick the registrator that holds it',
  2019166: "Namecheap does not know this domain: it is not registered there; check the domain's registrator",
  2030166: 'Namecheap says the domain name is not valid: check its spelling',
  2033409: "Namecheap found no account to charge: check the registrator's user name",
  3031510: NAMECHEAP_SIDE,
  3050900: NAMECHEAP_SIDE,
  4011103: "Namecheap refused: the domain is not available to this account; check the registrator's user name",
  5019169: NAMECHEAP_SIDE,
  5050169: NAMECHEAP_SIDE,
  5050900: NAMECHEAP_SIDE,
};

export interface ProviderReason {
  /** What it means and what to do. */
  reason: string;
  /** The provider's own words, code included. */
  detail: string;
}

// "Cloudflare: 7003 Could not route…", "Cloudflare: permission denied (9109 Unauthorized…)": a code followed by
// the provider's message (a duration, "timed out after 10000 ms", is no code).
const CLOUDFLARE_RE = /\bCloudflare\b[^\n]{0,80}?\b(\d{4,5}) (?!ms\b)[^\s\d]/;
// "Namecheap 2019166: Domain not found"
const NAMECHEAP_RE = /\bNamecheap (\d{6,7}):/;

/** A reason that carries a known provider code, explained; null when it carries none (show it as it is). */
export function explainProviderReason(text: string | null | undefined): ProviderReason | null {
  if (!text) return null;
  const cf = CLOUDFLARE_RE.exec(text);
  const cfReason = cf ? CLOUDFLARE_CODES[Number(cf[1])] : undefined;
  if (cfReason) return { reason: cfReason, detail: text };
  const nc = NAMECHEAP_RE.exec(text);
  const ncReason = nc ? NAMECHEAP_CODES[Number(nc[1])] : undefined;
  if (ncReason) return { reason: ncReason, detail: text };
  return null;
}
