import {
  ISPMANAGER_MESSAGES,
  SITE_NOT_CREATED_CODE,
  toAsciiDomain,
  type Domain,
  type IspSiteInfo,
  type IspSiteInfoData,
} from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import { NotFoundError, ValidationError } from '../../http/errors.ts';
import type {
  IspManagerClient,
  IspManagerCredentials,
  IspSiteForm,
  IspSiteRow,
} from '../../integrations/ispmanager/index.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { DomainsService } from '../domains/domains.service.ts';
import type { ServersService } from '../servers/servers.service.ts';

/** The panel's form fields as the tab shows them; the list row fills what the form leaves out. */
function siteInfoOf(name: string, form: IspSiteForm, row: IspSiteRow | null): IspSiteInfoData | null {
  const f = form.fields;
  if (!f) return null;
  const pick = (...v: (string | null | undefined)[]) => v.find((x) => typeof x === 'string' && x !== '') ?? null;
  return {
    name,
    owner: pick(f.owner, row?.owner),
    home: pick(f.home, row?.docroot),
    aliases: pick(f.aliases),
    email: pick(f.email),
    ipaddrs: pick(f.ipaddrs, row?.ipaddr),
    php: pick(f.php, f.php_enable, row?.php),
    phpVersion: pick(f.php_fpm_version, f.php_cgi_version, f.php_apache_version, row?.phpVersion),
    secure: pick(f.secure, row?.secure),
    active: pick(f.active, row?.active),
  };
}

/** The domain's site on its server's ISPmanager panel: read it, or create it. */
export function createIspManagerService(deps: {
  ispmanager: IspManagerClient;
  domains: Pick<DomainsService, 'get'>;
  servers: Pick<ServersService, 'panelAccess'>;
  audit: AuditService;
}) {
  const { ispmanager: isp, domains, servers, audit } = deps;

  const contextOf = async (domainId: string): Promise<{ domain: Domain; creds: IspManagerCredentials }> => {
    const stored = await domains.get(domainId);
    if (!stored.serverId) throw new ValidationError(ISPMANAGER_MESSAGES.noServer, undefined, 'no_server');
    // The panel knows a name in its ASCII (punycode) form, whatever form an older record holds.
    const domain = { ...stored, domainName: toAsciiDomain(stored.domainName) ?? stored.domainName };
    return { domain, creds: await credsOf(stored.serverId) };
  };

  /** The server's ISPmanager credentials; 400 when it has none. */
  const credsOf = async (serverId: string): Promise<IspManagerCredentials> => {
    const access = await servers.panelAccess(serverId, 'ispmanager');
    if (!access) throw new ValidationError(ISPMANAGER_MESSAGES.noCredentials, undefined, 'no_panel_credentials');
    return {
      baseUrl: access.uri,
      username: access.username.trim(),
      password: access.password,
      acceptSelfSigned: access.acceptSelfSigned,
    };
  };

  /** The site's info, or null when the panel has no site of that name. */
  const read = async (creds: IspManagerCredentials, name: string): Promise<IspSiteInfo | null> => {
    const row = await isp.findSite(creds, name);
    if (!row) return null;
    const form = await isp.getSiteForm(creds, name);
    const info = siteInfoOf(name, form, row);
    return { siteCreated: true, domainName: name, siteInfoData: info, rawAnswer: info ? null : form.raw };
  };

  return {
    /** Every web domain (site) the server's panel user sees (the imports, decision 043). */
    async listServerSites(serverId: string): Promise<string[]> {
      return (await isp.listSites(await credsOf(serverId))).map((r) => r.name);
    },

    async siteInfo(domainId: string): Promise<IspSiteInfo> {
      const { domain, creds } = await contextOf(domainId);
      const info = await read(creds, domain.domainName);
      if (!info) throw new NotFoundError(ISPMANAGER_MESSAGES.siteNotCreated, SITE_NOT_CREATED_CODE);
      return info;
    },

    async createSite(domainId: string, actor: Actor): Promise<IspSiteInfo> {
      const { domain, creds } = await contextOf(domainId);
      const base = { action: 'ispmanager_create_site', entity: 'domains', entityId: domain._id };
      const name = domain.domainName;
      try {
        await isp.createSite(creds, { name });
        // Created; reading it back may still fail, which then shows as the unparsable state, not an error.
        const info = (await read(creds, name).catch(() => null)) ?? {
          siteCreated: true as const,
          domainName: name,
          siteInfoData: null,
          rawAnswer: null,
        };
        await audit.record(actor, { ...base, details: { domainName: name, outcome: 'ok' } });
        return info;
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        await audit
          .record(actor, { ...base, details: { domainName: name, outcome: 'failed', error } })
          .catch(() => undefined);
        throw err;
      }
    },
  };
}
export type IspManagerService = ReturnType<typeof createIspManagerService>;
