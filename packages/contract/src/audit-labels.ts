import { SSL_MODE_LABELS, TLS_1_3_LABELS } from './cloud-flare.ts';
import { FleetActionSchema, describeFleetAction } from './fleet.ts';

/**
 * The one table of words for the audit trail: each action the API records, as the verb of a sentence ("admin
 * set the SSL mode of example.com to Full strict"), and each entity as a noun. A test keeps it complete for
 * every action that writes the audit trail (audit-labels.test.ts in the API).
 */
export const AUDIT_ACTION_LABELS: Record<string, string> = {
  create: 'created',
  update: 'changed',
  delete: 'deleted',
  login: 'signed in',
  logout: 'signed out',
  login_failed: 'failed to sign in',
  reveal: 'revealed a secret of',
  start_job: 'started a job on',
  cancel: 'cancelled',
  resume: 'resumed',
  create_plan: 'created',
  run_plan: 'ran',
  pause_plan: 'paused',
  resume_plan: 'resumed',
  cancel_plan: 'cancelled',
  retry_failed: 'retried the failed domains of',
  force_revert_row: 'ticked a changed-since row to revert in',
  unforce_revert_row: 'unticked a changed-since row of',
  set_firewall_rules: 'set the firewall templates of',
  test_connection: 'tested the connection to',
  test: 'sent a test message through',
  set_cloud_zone: 'set the Cloudflare zone of',
  set_registrator_expiration: 'set the registration expiry of',
  set_rsa_key: 'set the SSH key of',
  generate_rsa_key: 'generated an SSH key for',
  delete_rsa_key: 'deleted the SSH key of',
  clear_host_key: 'cleared the known host key of',
  cloudflare_set_ssl: 'set the SSL mode of',
  cloudflare_set_tls_1_3: 'set TLS 1.3 of',
  cloudflare_change_dns_records: 'changed the DNS records of',
  cloudflare_create_zone: 'created the Cloudflare zone of',
  cloudflare_delete_zone: 'deleted the Cloudflare zone of',
  cloudflare_link_zone: 'linked a Cloudflare zone to',
  cloudflare_unlink_zone: 'unlinked the Cloudflare zone of',
  cloudflare_purge_cache: 'purged the Cloudflare cache of',
  cloudflare_set_redirect_rules: 'set the redirect rules of',
  cloudflare_update_firewall_rules: 'pushed the WAF rules of',
  directadmin_create_domain: 'created the DirectAdmin domain of',
  directadmin_delete_domain: 'deleted the DirectAdmin domain of',
  ispmanager_create_site: 'created the ISPmanager site of',
  namecheap_register: 'registered at Namecheap',
  register_alone: 'confirmed the shown price and asked Namecheap to register',
  namecheap_set_name_servers: 'set the name servers at Namecheap of',
  registrar_import: 'imported the domains of',
  add_host: 'added to Yandex Webmaster',
  delete_host: 'removed from Yandex Webmaster',
  verify_host: 'verified at Yandex Webmaster',
  yandex_verification_file: 'wrote the Yandex verification file of',
  google_verification_file: 'wrote the Google verification file of',
  google_add_property: 'added to Google Search Console',
  google_remove_property: 'removed from Google Search Console',
  google_verify_property: 'verified at Google Search Console',
  google_submit_sitemap: 'submitted a sitemap to Google for',
  google_delete_sitemap: 'removed a sitemap at Google of',
  add_sitemap: 'added a sitemap at Yandex Webmaster for',
  delete_sitemap: 'removed a sitemap at Yandex Webmaster of',
  recrawl: 'asked Yandex to recrawl a page of',
  recrawl_backlog: 'asked Yandex to recrawl pages of',
  create_import: 'planned',
  run_import: 'ran',
  pause_import: 'paused',
  resume_import: 'resumed',
  retry_import: 'retried the failed names of',
  cancel_import: 'cancelled',
  import_domain: 'imported',
  import_zone_file: 'imported a zone file into',
  export_zone_files: 'exported zone files in',
  launch: 'launched',
  confirm_launch: 'confirmed the costly step of',
  retry_launch: 'ran again',
  cancel_launch: 'cancelled',
  create_launch_batch: 'planned',
  run_launch_batch: 'ran',
  pause_launch_batch: 'paused',
  resume_launch_batch: 'resumed',
  cancel_launch_batch: 'cancelled',
  retry_launch_batch: 'retried the failed names of',
  confirm_launch_batch: 'confirmed the waiting registrations of',
  content_files_create_domain_dir: 'created the content directory of',
  content_files_save: 'saved a content file of',
  content_files_rename: 'renamed a content file of',
  content_files_remove: 'removed content files of',
  content_files_create_dir: 'created a content folder of',
  content_files_upload: 'uploaded content files to',
  content_files_copy: 'copied content files onto',
  content_files_restore: 'restored content files of',
};

/** Each entity of the audit trail as a noun (singular), and what the audit screen's filter calls it. */
export const AUDIT_ENTITY_LABELS: Record<string, { noun: string; plural: string }> = {
  users: { noun: 'user', plural: 'Users' },
  roles: { noun: 'role', plural: 'Roles' },
  domains: { noun: 'domain', plural: 'Domains' },
  clouds: { noun: 'cloud', plural: 'Clouds' },
  proxies: { noun: 'proxy', plural: 'Proxies' },
  servers: { noun: 'server', plural: 'Servers' },
  brands: { noun: 'brand', plural: 'Brands' },
  regions: { noun: 'region', plural: 'Regions' },
  'firewall-rules': { noun: 'firewall rule', plural: 'Firewall Rules' },
  'domain-registrators': { noun: 'domain registrator', plural: 'Domain Registrators' },
  'domain-registrators-contacts': { noun: 'registrator contact', plural: 'Domain Registrator Contacts' },
  'yandex-webmaster': { noun: 'Yandex Webmaster account', plural: 'Yandex Webmaster' },
  'google-search': { noun: 'Google account', plural: 'Google Search Console' },
  'dns-templates': { noun: 'DNS template', plural: 'DNS Templates' },
  'launch-profiles': { noun: 'launch profile', plural: 'Launch Profiles' },
  'notification-channels': { noun: 'notification channel', plural: 'Notification Channels' },
  'alert-rules': { noun: 'alert rule', plural: 'Alert Rules' },
  fleet_plans: { noun: 'fleet plan', plural: 'Fleet plans' },
  jobs: { noun: 'job', plural: 'Jobs' },
  sessions: { noun: 'session', plural: 'Sign-ins' },
  api_tokens: { noun: 'API token', plural: 'API tokens' },
  import_plans: { noun: 'import', plural: 'Imports' },
  launches: { noun: 'launch', plural: 'Launches' },
  launch_batches: { noun: 'launch batch', plural: 'Launch batches' },
};

/** Sign-ins and sign-outs: the trail of who came and went, not of what changed. */
export const AUDIT_SIGN_IN_ACTIONS: readonly string[] = ['login', 'logout', 'login_failed'];

export type AuditFacts = {
  username: string | null;
  action: string;
  entity: string;
  entityId: string | null;
  diff?: Record<string, { before: unknown; after: unknown }> | null;
  details?: Record<string, unknown> | null;
};

const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v : typeof v === 'number' ? String(v) : null);

/** What the entry is about, by name where the entry knows one. */
function subjectOf(e: AuditFacts): string {
  const d = e.details ?? {};
  const noun = AUDIT_ENTITY_LABELS[e.entity]?.noun ?? e.entity.replace(/[_-]/g, ' ');
  if (e.entity === 'fleet_plans' && str(d.planNo)) return `fleet plan #${str(d.planNo)}`;
  if (e.entity === 'jobs' && str(d.jobNo)) return `job #${str(d.jobNo)}`;
  if (e.entity === 'import_plans' && str(d.importNo)) return `import #${str(d.importNo)}`;
  const diffName = (k: string) => {
    const f = e.diff?.[k];
    return f ? (str(f.after) ?? str(f.before)) : null;
  };
  const name =
    str(d.domainName) ??
    str(d.name) ??
    str(d.username) ??
    str(d.email) ??
    str(d.IPAddress) ??
    str(d.host) ??
    diffName('domainName') ??
    diffName('name') ??
    diffName('username') ??
    diffName('email') ??
    diffName('IPAddress') ??
    diffName('host');
  if (e.entity === 'domains') return name ?? 'a domain';
  // A webmaster action is about one host of the account: named by it ("https:example.com:443" is example.com).
  const host = str(d.hostId)?.split(':')[1] ?? str(d.hostUrl);
  if (e.entity === 'yandex-webmaster' && host) return host;
  return name ? `${noun} ${name}` : `a ${noun}`;
}

/** A changed field in words: "serverId" is "server", "parserURL" is "parser URL". */
export function auditFieldWords(key: string): string {
  const words = key
    .replace(/(Id|Ids)$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter(Boolean)
    .map((w) => (/^[A-Z]{2,}$/.test(w) ? w : w.toLowerCase()));
  return words.join(' ');
}

/** Keys that say nothing to a reader (bookkeeping the row keeps). */
const QUIET_KEYS = new Set(['updatedAt', 'createdAt', 'version']);

/** "the server and brand of": what an update changed, when its diff says (at most four named). */
function changedOf(e: AuditFacts): string | null {
  if (e.action !== 'update' || !e.diff) return null;
  const keys = Object.keys(e.diff).filter((k) => !QUIET_KEYS.has(k));
  if (!keys.length) return null;
  const words = [...new Set(keys.map(auditFieldWords))];
  const shown = words.length > 4 ? [...words.slice(0, 3), `${words.length - 3} more fields`] : words;
  const list = shown.length === 1 ? shown[0]! : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)!}`;
  return `changed the ${list} of`;
}

/** The value the entry set, in words, where there is one ("to Full strict"). */
function settingOf(e: AuditFacts): string {
  const sent = (e.details?.sent ?? {}) as Record<string, unknown>;
  const value = str(sent.value);
  if (!value) return '';
  if (e.action === 'cloudflare_set_ssl')
    return ` to ${SSL_MODE_LABELS[value as keyof typeof SSL_MODE_LABELS] ?? value}`;
  if (e.action === 'cloudflare_set_tls_1_3')
    return ` to ${TLS_1_3_LABELS[value as keyof typeof TLS_1_3_LABELS] ?? value}`;
  return '';
}

/**
 * An entry as a sentence: "admin set the SSL mode of example.com to Full strict", "admin created fleet plan #3:
 * Add TXT _tour → hello", "admin signed in". A failed provider call says so.
 */
export function auditSentence(e: AuditFacts): string {
  const who = e.username ?? 'The system';
  const verb = changedOf(e) ?? AUDIT_ACTION_LABELS[e.action] ?? e.action.replace(/_/g, ' ');
  if (AUDIT_SIGN_IN_ACTIONS.includes(e.action)) return `${who} ${verb}`;
  const d = e.details ?? {};
  let tail = settingOf(e);
  if (e.entity === 'fleet_plans' && e.action === 'create_plan') {
    const a = FleetActionSchema.safeParse(d.action);
    if (a.success) tail = `: ${describeFleetAction(a.data)}`;
  }
  if (e.action === 'start_job' && str(d.kind)) tail = ` (${str(d.kind)})`;
  const failed = d.outcome === 'error' || d.outcome === 'failed' ? ' (it failed)' : '';
  return `${who} ${verb} ${subjectOf(e)}${tail}${failed}`;
}
