import {
  DIRECT_ADMIN_MESSAGES,
  toAsciiDomain,
  type DirectAdminCreateResult,
  type DirectAdminDeleteResult,
  type DirectAdminDomainInfo,
  type Domain,
} from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import { ValidationError } from '../../http/errors.ts';
import {
  DirectAdminError,
  type DirectAdminClient,
  type DirectAdminCredentials,
} from '../../integrations/directadmin/index.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { DomainsService } from '../domains/domains.service.ts';
import type { ServersService } from '../servers/servers.service.ts';

const LOGIN_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The domain's site on its server's DirectAdmin panel: whether it exists, create it, delete it. */
export function createDirectAdminService(deps: {
  directAdmin: DirectAdminClient;
  domains: Pick<DomainsService, 'get'>;
  servers: Pick<ServersService, 'panelAccess'>;
  audit: AuditService;
}) {
  const { directAdmin: da, domains, servers, audit } = deps;

  /** The domain and its server's DirectAdmin credentials; 400 when either is missing. */
  const contextOf = async (domainId: string): Promise<{ domain: Domain; creds: DirectAdminCredentials }> => {
    const stored = await domains.get(domainId);
    if (!stored.serverId) throw new ValidationError(DIRECT_ADMIN_MESSAGES.noServer, undefined, 'no_server');
    // The panel knows a name in its ASCII (punycode) form, whatever form an older record holds.
    const domain = { ...stored, domainName: toAsciiDomain(stored.domainName) ?? stored.domainName };
    return { domain, creds: await credsOf(stored.serverId) };
  };

  /** The server's DirectAdmin credentials; 400 when it has none. */
  const credsOf = async (serverId: string): Promise<DirectAdminCredentials> => {
    const access = await servers.panelAccess(serverId, 'directAdmin');
    if (!access) throw new ValidationError(DIRECT_ADMIN_MESSAGES.noCredentials, undefined, 'no_panel_credentials');
    // "admin|alice" on the server record: an admin's credentials, acting as the user alice.
    const [username = '', actAs, extra] = access.username.trim().split('|');
    if (!LOGIN_RE.test(username) || (actAs !== undefined && !LOGIN_RE.test(actAs)) || extra !== undefined) {
      throw new ValidationError(DIRECT_ADMIN_MESSAGES.badUsername, undefined, 'bad_panel_username');
    }
    return { baseUrl: access.uri, username, password: access.password, actAs: actAs ?? null };
  };

  /** DirectAdmin's refusal travels in the error envelope as serviceResponse, next to the message. */
  const withServiceResponse = (err: unknown) => {
    if (err instanceof DirectAdminError && err.serviceResponse) err.envelope = { serviceResponse: err.serviceResponse };
    return err;
  };

  const audited = async <T>(
    actor: Actor,
    domain: Domain,
    action: string,
    run: () => Promise<{ value: T; answer: unknown }>,
  ): Promise<T> => {
    const base = { action: `directadmin_${action}`, entity: 'domains', entityId: domain._id };
    try {
      const { value, answer } = await run();
      await audit.record(actor, { ...base, details: { domainName: domain.domainName, outcome: 'ok', answer } });
      return value;
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      await audit
        .record(actor, { ...base, details: { domainName: domain.domainName, outcome: 'failed', error } })
        .catch(() => undefined);
      throw withServiceResponse(err);
    }
  };

  return {
    /**
     * Every domain on the server the login can see, lower case, with the user that owns it (the imports, decision
     * 043). CMD_API_SHOW_DOMAINS is a user-level command: with an admin's own login it would list only the admin's
     * domains, so every user is listed (CMD_API_SHOW_ALL_USERS) and each user's domains read through login-as
     * (`admin|user`). A user's login, or an admin acting as one user, reads that user's domains. Users are read
     * one after another: the panel has no rate limit, but this is one server's process.
     */
    async listServerDomains(serverId: string): Promise<{ users: string[]; domains: { name: string; user: string }[] }> {
      const creds = await credsOf(serverId);
      const own = async (user: string, c: DirectAdminCredentials) =>
        (await da.listDomains(c)).map((name) => ({ name, user }));
      if (creds.actAs) return { users: [creds.actAs], domains: await own(creds.actAs, creds) };
      const users = await da.listUsers(creds);
      if (!users) return { users: [creds.username], domains: await own(creds.username, creds) };
      const domains: { name: string; user: string }[] = [];
      for (const user of users) {
        domains.push(...(await own(user, user === creds.username ? creds : { ...creds, actAs: user })));
      }
      return { users, domains };
    },

    async domainInfo(domainId: string): Promise<DirectAdminDomainInfo> {
      const { domain, creds } = await contextOf(domainId);
      const name = domain.domainName;
      if (!(await da.hasDomain(creds, name))) return { domainCreated: false, domainName: name, domainInfoData: null };
      return { domainCreated: true, domainName: name, domainInfoData: await da.getDomain(creds, name) };
    },

    async createDomain(domainId: string, actor: Actor): Promise<DirectAdminCreateResult> {
      const { domain, creds } = await contextOf(domainId);
      return audited(actor, domain, 'create_domain', async () => {
        const result = await da.createDomain(creds, domain.domainName);
        // The domain exists now; a failure to read its details must not turn the create into an error.
        const info = await da.getDomain(creds, domain.domainName).catch(() => null);
        return {
          value: { domainCreated: true as const, domainInfoData: info, message: result.text },
          answer: result,
        };
      });
    },

    async deleteDomain(domainId: string, actor: Actor): Promise<DirectAdminDeleteResult> {
      const { domain, creds } = await contextOf(domainId);
      return audited(actor, domain, 'delete_domain', async () => {
        const result = await da.deleteDomain(creds, domain.domainName);
        return { value: { domainCreated: false as const, message: result.text }, answer: result };
      });
    },
  };
}
export type DirectAdminService = ReturnType<typeof createDirectAdminService>;
