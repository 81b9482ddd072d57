/** One entry of a header action menu. */
export interface DomainActionEntry {
  label: string;
  /** The route segment after /domains/{id}/ (or after /domains/{id}/cloud-flare/). */
  path: string;
  danger?: boolean;
  /** Shown only when the domain has a cloud zone id (spec 1, "Domain cloud-zone subviews"). */
  needsZone?: boolean;
}

/** The Domain Actions menu, in the spec's order (spec 2 §2). */
export const DOMAIN_ACTIONS: readonly DomainActionEntry[] = [
  { label: 'Setup WAF', path: 'firewall-rules' },
  { label: 'Domain Parsing', path: 'parsing' },
  { label: 'Generate Sitemap', path: 'generate-sitemap' },
  { label: 'Copy Content Files', path: 'copy-content-files' },
  { label: 'Edit Content Files', path: 'edit-content-files' },
  { label: 'Delete Domain', path: 'delete', danger: true },
  { label: 'Domain Replacement', path: 'replacement' },
  { label: 'Register Domain', path: 'register' },
];

/**
 * The Cloud Actions menu (spec 2 §2, plus Zone Info from spec 1), under /domains/{id}/cloud-flare/. Delete,
 * Unlink and Zone Info need a zone id.
 */
export const CLOUD_ACTIONS: readonly DomainActionEntry[] = [
  { label: 'Create Zone', path: 'create-zone' },
  { label: 'Delete Zone', path: 'delete-zone', danger: true, needsZone: true },
  { label: 'Link Zone', path: 'link-zone' },
  { label: 'Unlink Zone', path: 'unlink-zone', needsZone: true },
  { label: 'Zone Info', path: 'zone-info', needsZone: true },
  { label: 'Update Firewall Rules', path: 'update-firewall-rules' },
  { label: 'Update SSL Settings', path: 'update-ssl-settings' },
  { label: 'Update TLS 1.3 Settings', path: 'update-tls-1-3-settings' },
  { label: 'Update DNS', path: 'update-dns' },
  { label: 'Update Redirect Rules', path: 'update-redirect-rules' },
  { label: 'Purge Cache', path: 'purge-cache' },
  // Beyond the spec: the registrar's name servers set to the zone's (the registrar issue).
  { label: 'Set name servers at registrar', path: 'set-registrar-name-servers', needsZone: true },
];
