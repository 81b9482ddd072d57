/** Markers of bot-protection pages: Cloudflare's managed/JS challenge and block pages, and other common ones. */
const BODY_MARKERS: [RegExp, string][] = [
  [/<title>\s*Just a moment\.\.\.\s*<\/title>/i, 'Cloudflare challenge'],
  [/challenge-platform|_cf_chl_opt|cf-browser-verification|cf_chl_/i, 'Cloudflare challenge'],
  [/<title>\s*Attention Required! \| Cloudflare\s*<\/title>/i, 'Cloudflare block page'],
  [/cf-error-details|Cloudflare Ray ID/i, 'Cloudflare block page'],
  [/ddos-guard/i, 'DDoS-Guard challenge'],
  [/<title>\s*(?:DDoS protection by|Checking your browser)/i, 'bot check'],
  [/g-recaptcha|h-captcha|hcaptcha\.com\/1\/api|captcha-delivery\.com/i, 'captcha'],
];
/** Statuses a protection layer answers with; a normal page with these markers (a captcha form) is not a block. */
const CHALLENGE_STATUS = new Set([403, 429, 503]);

/**
 * Names the bot protection a response is, or null. A `cf-mitigated: challenge` header is certain; otherwise the
 * status must be one a challenge uses and the body must carry a known marker (only the first 64 KB are read).
 */
export function detectChallenge(status: number, headers: Record<string, string | string[] | undefined>, body: Buffer) {
  const mitigated = headers['cf-mitigated'];
  if (typeof mitigated === 'string' && /challenge/i.test(mitigated)) return 'Cloudflare challenge';
  if (!CHALLENGE_STATUS.has(status)) return null;
  const text = body.subarray(0, 64 * 1024).toString('latin1');
  for (const [re, what] of BODY_MARKERS) if (re.test(text)) return what;
  return null;
}
