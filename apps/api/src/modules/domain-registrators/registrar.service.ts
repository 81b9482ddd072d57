import { domainToASCII } from 'node:url';
import {
  PAGE_SIZE,
  REGISTRAR_TEXT,
  type DomainRegistratorContact,
  type ListQuery,
  type ListResult,
  type RegisterDomainResult,
  type RegistrarNameServersResult,
  type RegistratorDomain,
  type RegistratorDomainInfo,
  type RegistratorImportResult,
} from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import { AppError, UpstreamError, ValidationError } from '../../http/errors.ts';
import {
  NAMECHEAP_DOMAIN_ERRORS,
  type NamecheapClient,
  type NamecheapCredentials,
  type NcContact,
  type NcPrice,
  splitDomain,
} from '../../integrations/namecheap/index.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { CloudFlareService } from '../cloud-flare/cloud-flare.service.ts';
import type { DomainRegistratorsContactsService } from '../domain-registrators-contacts/domain-registrators-contacts.service.ts';
import type { DomainsService } from '../domains/domains.service.ts';
import { unicodeOf } from '../domains/domains.repository.ts';
import type { DomainRegistratorsService } from './domain-registrators.service.ts';

/** Contact fields Namecheap requires in every role, with the console's labels. */
const CONTACT_REQUIRED: [keyof DomainRegistratorContact, string][] = [
  ['firstName', 'First Name'],
  ['lastName', 'Last Name'],
  ['address1', 'Address'],
  ['city', 'City'],
  ['state', 'State'],
  ['postalCode', 'Postal Code'],
  ['country', 'Country'],
  ['phone', 'Phone'],
  ['email', 'Email'],
];

const badName = (field: string) =>
  new ValidationError(`${field} is not a valid domain name`, { [field]: `${field} is not a valid domain name` });
const asciiOf = (name: string, field = 'domainName') => {
  const a = domainToASCII(name.trim().replace(/\.$/, '').toLowerCase());
  if (!a || !a.includes('.')) throw badName(field);
  return a;
};

/**
 * The registrar behind a registrator (Namecheap is the only type): live domain info, the account's domain list
 * and its import, registration, and name servers. Credentials are decrypted per call and never leave here.
 */
export function createRegistrarService(deps: {
  namecheap: NamecheapClient;
  registrators: Pick<DomainRegistratorsService, 'credentials' | 'get'>;
  contacts: Pick<DomainRegistratorsContactsService, 'get'>;
  domains: Pick<DomainsService, 'get' | 'create' | 'setRegistratorExpiration' | 'idsByNames'>;
  cloudFlare: Pick<CloudFlareService, 'zoneInfo'>;
  audit: AuditService;
  /** How long a TLD's registration prices are kept (Namecheap asks callers to cache getPricing). Default 10 min. */
  priceTtlMs?: number;
  now?: () => number;
}) {
  const { namecheap: nc, registrators, contacts, domains, cloudFlare, audit } = deps;
  const priceTtlMs = deps.priceTtlMs ?? 10 * 60_000;
  const now = deps.now ?? Date.now;
  /** REGISTER prices by account and TLD, kept briefly; a failed read is not kept (the next look asks again). */
  const prices = new Map<string, { at: number; rows: NcPrice[] }>();

  const credsOf = async (registratorId: string): Promise<NamecheapCredentials> => {
    const c = await registrators.credentials(registratorId);
    return { endpointUrl: c.endpointUrl, apiUser: c.apiUsername, apiKey: c.apiKey ?? '' };
  };

  /** The domain and its registrator, refusing the way the screens warn (spec 2 §5). */
  const domainWithRegistrator = async (domainId: string) => {
    const domain = await domains.get(domainId);
    if (!domain.domainRegistratorId) {
      const message = `${REGISTRAR_TEXT.noRegistrator}: ${REGISTRAR_TEXT.chooseRegistrator}`;
      throw new ValidationError(message, undefined, 'no_registrator');
    }
    return { domain, registratorId: domain.domainRegistratorId, creds: await credsOf(domain.domainRegistratorId) };
  };

  /** The zone's name servers, read through the existing Cloudflare service; null when there is no zone. */
  const zoneNameServers = async (domainId: string, cloudZoneId: string | null): Promise<string[] | null> => {
    if (!cloudZoneId) return null;
    const info = await cloudFlare.zoneInfo(domainId);
    const ns = info.data.result?.name_servers ?? [];
    if (info.errorMessage || !ns.length) {
      throw new UpstreamError('Cloudflare', info.errorMessage ?? 'Cloudflare: the zone has no name servers');
    }
    return ns;
  };

  const audited = async <T>(
    actor: Actor,
    base: { action: string; entity: string; entityId: string },
    details: Record<string, unknown>,
    run: () => Promise<{ value: T; answer: unknown }>,
  ): Promise<T> => {
    try {
      const { value, answer } = await run();
      await audit.record(actor, { ...base, details: { ...details, outcome: 'ok', answer } });
      return value;
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      await audit.record(actor, { ...base, details: { ...details, outcome: 'failed', error } }).catch(() => undefined);
      throw err;
    }
  };

  return {
    /** Every domain of the registrar account, all pages (the imports, decision 043). */
    async accountDomains(registratorId: string) {
      return nc.getAll(await credsOf(registratorId));
    },

    /**
     * Spec 2 "Registrator domain info". Namecheap saying the domain is not in the account (not found, not
     * associated, invalid) is an unsuccessful result (200, success false, its message) that the tab offers to
     * register; anything else (credentials, rate, network) is a failure (502/504) the tab retries. A success
     * stores the expiration date on the console's domain of that name tied to this registrator.
     */
    async domainInfo(registratorId: string, domainName: string, actor: Actor): Promise<RegistratorDomainInfo> {
      const ascii = asciiOf(domainName);
      const creds = await credsOf(registratorId);
      try {
        const info = await nc.getInfo(creds, ascii);
        const ids = await domains.idsByNames([ascii]);
        const id = ids.get(ascii);
        if (id && info.expirationDate) {
          const d = await domains.get(id);
          if (d.domainRegistratorId === registratorId && d.domainRegistratorExpirationDate !== info.expirationDate) {
            await domains.setRegistratorExpiration(id, info.expirationDate, actor);
          }
        }
        return {
          success: true,
          message: `Namecheap: ${unicodeOf(info.domainName)} is in the account`,
          data: { status: info.status, expirationDate: info.expirationDate },
        };
      } catch (err) {
        if (err instanceof UpstreamError && NAMECHEAP_DOMAIN_ERRORS.has(Number(err.upstreamCode))) {
          return { success: false, message: err.message, data: { status: null, expirationDate: null } };
        }
        throw err;
      }
    },

    /**
     * One page of the account's domains (Namecheap pages them; the console's page size fits its 10–100
     * bounds), each marked when the console has a domain of that name.
     */
    async listDomains(registratorId: string, q: ListQuery): Promise<ListResult<RegistratorDomain>> {
      const creds = await credsOf(registratorId);
      const page = await nc.getListPage(creds, { page: q.page, pageSize: PAGE_SIZE, search: q.search });
      const ids = await domains.idsByNames(page.items.map((d) => d.domainName));
      return {
        items: page.items.map((d) => ({
          domainName: d.domainName,
          domainNameUnicode: unicodeOf(d.domainName),
          expirationDate: d.expirationDate,
          isExpired: d.isExpired,
          isLocked: d.isLocked,
          autoRenew: d.autoRenew,
          existsInConsole: ids.has(d.domainName),
          domainId: ids.get(d.domainName) ?? null,
        })),
        itemsCount: page.totalItems,
      };
    },

    /**
     * Import (beyond the spec): the selected names become domains tied to this registrator, with the expiration
     * dates Namecheap lists. The whole account list is read (page after page) so a name is imported only when
     * the account really holds it; names the console has already are skipped. Each create is audited, and so
     * is the import itself.
     */
    async importDomains(registratorId: string, names: string[], actor: Actor): Promise<RegistratorImportResult> {
      const wanted = [...new Set(names.map((n) => asciiOf(n, 'domainNames')))];
      const registrator = await registrators.get(registratorId);
      const creds = await credsOf(registratorId);
      return audited(
        actor,
        { action: 'registrar_import', entity: 'domain-registrators', entityId: registratorId },
        { registrator: registrator.name, domainNames: wanted },
        async () => {
          const account = new Map((await nc.getAll(creds)).map((d) => [d.domainName, d]));
          const existing = await domains.idsByNames(wanted);
          const result: RegistratorImportResult = { created: [], skipped: [] };
          for (const name of wanted) {
            const listed = account.get(name);
            const shown = unicodeOf(name);
            if (!listed) result.skipped.push({ domainName: shown, reason: REGISTRAR_TEXT.notInAccount });
            else if (existing.has(name))
              result.skipped.push({ domainName: shown, reason: REGISTRAR_TEXT.alreadyInConsole });
            else {
              try {
                const d = await domains.create(
                  {
                    domainName: name,
                    status: 'active',
                    domainRegistratorId: registratorId,
                    domainRegistratorExpirationDate: listed.expirationDate,
                  } as Parameters<DomainsService['create']>[0],
                  actor,
                );
                result.created.push({
                  _id: d._id,
                  domainName: d.domainNameUnicode,
                  expirationDate: listed.expirationDate,
                });
              } catch (err) {
                // A concurrent create of the same name, or a name the console refuses: reported, the rest go on.
                if (!(err instanceof AppError)) throw err;
                result.skipped.push({ domainName: shown, reason: err.message });
              }
            }
          }
          return { value: result, answer: { created: result.created.length, skipped: result.skipped } };
        },
      );
    },

    /**
     * Registers the domain at Namecheap (domains.create) with the contact in all four roles, pointing it at the
     * Cloudflare zone's name servers when the domain has a zone. Never retried: a resend could charge twice.
     */
    async register(domainId: string, contactId: string, years: number, actor: Actor): Promise<RegisterDomainResult> {
      const { domain, registratorId, creds } = await domainWithRegistrator(domainId);
      const contact = await contacts.get(contactId).catch((err: unknown) => {
        if (err instanceof AppError && err.status === 404) {
          throw new ValidationError(REGISTRAR_TEXT.noContact, { domainRegistratorContactId: REGISTRAR_TEXT.noContact });
        }
        throw err;
      });
      const missing = CONTACT_REQUIRED.filter(([k]) => !contact[k]).map(([, label]) => label);
      if (missing.length) {
        const message = REGISTRAR_TEXT.contactIncomplete(missing);
        throw new ValidationError(message, { domainRegistratorContactId: message }, 'contact_incomplete');
      }
      const ncContact: NcContact = {
        firstName: contact.firstName!,
        lastName: contact.lastName!,
        address1: contact.address1!,
        city: contact.city!,
        stateProvince: contact.state!,
        postalCode: contact.postalCode!,
        country: contact.country!,
        phone: contact.phone!,
        email: contact.email!,
      };
      const nameServers = await zoneNameServers(domainId, domain.cloudZoneId);
      const result = await audited(
        actor,
        { action: 'namecheap_register', entity: 'domains', entityId: domainId },
        { domainName: domain.domainName, registratorId, contact: contact.name, years, nameServers },
        async () => {
          const r = await nc.create(creds, {
            domainName: domain.domainName,
            years,
            contact: ncContact,
            nameServers: nameServers ?? undefined,
          });
          return { value: r, answer: r };
        },
      );
      // The expiration date follows from the registration; a failed read leaves the date for the tab's check.
      let expirationDate: string | null = null;
      if (result.registered) {
        expirationDate = await nc
          .getInfo(creds, domain.domainName)
          .then((i) => i.expirationDate)
          .catch(() => null);
        if (expirationDate) await domains.setRegistratorExpiration(domainId, expirationDate, actor);
      }
      return {
        domainName: unicodeOf(result.domainName),
        registered: result.registered,
        chargedAmount: result.chargedAmount,
        orderId: result.orderId,
        transactionId: result.transactionId,
        domainId: result.domainId,
        nameServers,
        expirationDate,
      };
    },

    /** Whether the account holds the name, without writing anything (a launch's plan and stage). */
    async inAccount(registratorId: string, domainName: string): Promise<{ inAccount: boolean; message: string }> {
      const ascii = asciiOf(domainName);
      try {
        await nc.getInfo(await credsOf(registratorId), ascii);
        return { inAccount: true, message: `Namecheap: ${unicodeOf(ascii)} is in the account` };
      } catch (err) {
        if (err instanceof UpstreamError && NAMECHEAP_DOMAIN_ERRORS.has(Number(err.upstreamCode)))
          return { inAccount: false, message: err.message };
        throw err;
      }
    },

    /** Whether the name can be registered at this registrator now (a launch's plan). */
    async availability(registratorId: string, domainName: string) {
      const ascii = asciiOf(domainName);
      const [r] = await nc.check(await credsOf(registratorId), [ascii]);
      return { available: !!r?.available, description: r?.description ?? null };
    },

    /**
     * What registering the name for `years` costs at this registrator now, from Namecheap's users.getPricing
     * (ProductType=DOMAIN, ActionName=REGISTER, ProductName=<tld>): the per-year price of that duration plus its
     * additional cost, times the years, in the answer's currency. When it cannot be read the reason names Namecheap;
     * a price is never made up.
     */
    async registrationPrice(
      registratorId: string,
      domainName: string,
      years: number,
    ): Promise<{ cost: { amount: string; currency: string } | null; priceError: string | null }> {
      const unavailable = (reason: string) => ({ cost: null, priceError: `price unavailable: ${reason}` });
      try {
        const { tld } = splitDomain(asciiOf(domainName));
        const creds = await credsOf(registratorId);
        const key = `${creds.endpointUrl}\0${creds.apiUser.toLowerCase()}\0${tld}`;
        let hit = prices.get(key);
        if (!hit || now() - hit.at > priceTtlMs) {
          hit = {
            at: now(),
            rows: await nc.getPricing(creds, { productType: 'DOMAIN', actionName: 'REGISTER', productName: tld }),
          };
          prices.set(key, hit);
          if (prices.size > 2000) prices.delete(prices.keys().next().value!);
        }
        const row = hit.rows.find(
          (r) => r.product === tld && r.category === 'REGISTER' && r.durationType === 'YEAR' && r.duration === years,
        );
        const what = `${years}-year registration of .${unicodeOf(tld)}`;
        if (!row) return unavailable(`Namecheap lists no price for a ${what}`);
        if (row.price === null || !row.currency)
          return unavailable(`Namecheap's price for a ${what} has no amount or currency`);
        const amount = Math.round((row.price + row.additionalCost) * years * 100) / 100;
        return { cost: { amount: amount.toFixed(2), currency: row.currency }, priceError: null };
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        const m = err.message;
        return unavailable(/namecheap/i.test(m) ? m : `Namecheap: ${m}`);
      }
    },

    /** What Namecheap says of the domain now: its expiry and name servers (the health checks). */
    async domainState(domainId: string) {
      const { domain, creds } = await domainWithRegistrator(domainId);
      const info = await nc.getInfo(creds, domain.domainName);
      return { expirationDate: info.expirationDate, nameServers: info.nameServers };
    },

    /** The cloud action "Set name servers at registrar" (beyond the spec): the zone's name servers at Namecheap. */
    async setNameServers(domainId: string, actor: Actor): Promise<RegistrarNameServersResult> {
      const { domain, registratorId, creds } = await domainWithRegistrator(domainId);
      if (!domain.cloudZoneId) throw new ValidationError(REGISTRAR_TEXT.noZone, undefined, 'no_cloud_zone');
      const wanted = (await zoneNameServers(domainId, domain.cloudZoneId))!;
      return audited(
        actor,
        { action: 'namecheap_set_name_servers', entity: 'domains', entityId: domainId },
        { domainName: domain.domainName, registratorId, nameServers: wanted },
        async () => {
          const before = await nc.getDnsList(creds, domain.domainName);
          const set = await nc.setCustomNameServers(creds, domain.domainName, wanted);
          const after = await nc.getDnsList(creds, domain.domainName);
          const value = {
            domainName: domain.domainNameUnicode,
            before: before.nameServers,
            after: after.nameServers,
            updated: set.updated,
          };
          return { value, answer: value };
        },
      );
    },
  };
}
export type RegistrarService = ReturnType<typeof createRegistrarService>;
