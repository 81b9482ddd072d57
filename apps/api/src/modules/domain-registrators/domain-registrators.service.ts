import type { DomainRegistrator, DomainRegistratorUpdateInput, ListQuery } from '@fleetdesk/contract';
import type { Database } from '../../db/client.ts';
import { NotFoundError, ValidationError } from '../../http/errors.ts';
import { assertCredentialDestinations } from '../../lib/credential-destinations.ts';
import { createCrudService } from '../../lib/crud-service.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { createRevealer, sealInput } from '../../lib/secrets.ts';
import type { UsageRegistry } from '../../lib/usage.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type {
  DomainRegistratorRow,
  DomainRegistratorWrite,
  DomainRegistratorsRepository,
} from './domain-registrators.repository.ts';

export const REGISTRATOR_MESSAGES = {
  duplicate: 'A domain registrator with this name already exists',
  typeLocked: 'The type can be set only on create',
};

export function createDomainRegistratorsService(deps: {
  database: Database;
  audit: AuditService;
  usage: UsageRegistry;
  secrets: SecretBox;
  repo: DomainRegistratorsRepository;
}) {
  const { database, audit, secrets, repo } = deps;

  // The update input is the wider of the two (every field optional), so one type serves create and update.
  const crud = createCrudService<DomainRegistrator, DomainRegistratorUpdateInput, ListQuery, DomainRegistratorWrite>({
    ...deps,
    entity: 'domain-registrators',
    label: 'domain registrator',
    unique: { domain_registrators_name_lower_uq: { field: 'name', message: REGISTRATOR_MESSAGES.duplicate } },
    // An omitted credentials object, or the masked key, keeps what is stored.
    toWrite: (input) => ({
      name: input.name,
      type: input.type,
      endpointUrl: input.credentials?.endpointUrl,
      apiUsername: input.credentials?.apiUsername,
      apiKey: sealInput(secrets, input.credentials?.apiKey),
    }),
    validate: async (input, current, _tx, actor) => {
      if (current && input.type !== undefined && input.type !== current.type) {
        throw new ValidationError(REGISTRATOR_MESSAGES.typeLocked, { type: REGISTRATOR_MESSAGES.typeLocked });
      }
      // The API key travels to the endpoint on every call (decision 058).
      if (current)
        assertCredentialDestinations(actor, [
          {
            field: 'credentials.endpointUrl',
            label: 'Endpoint URL',
            credentialField: 'credentials.apiKey',
            credentialLabel: 'API key',
            next: input.credentials?.endpointUrl,
            current: current.credentials.endpointUrl,
            credentialGiven: input.credentials?.apiKey !== undefined,
            credentialStored: current.credentials.apiKey !== null,
          },
        ]);
    },
    // The sealed key changes when the key changes; the audit redacts it by name.
    snapshot: async (id, ex) => {
      const r = await repo.findRow(id, ex);
      return (
        r && { name: r.name, type: r.type, endpointUrl: r.endpointUrl, apiUsername: r.apiUsername, apiKey: r.apiKey }
      );
    },
  });

  return {
    ...crud,
    findByIds: repo.findByIds,
    reveal: createRevealer<DomainRegistratorRow>({
      database,
      audit,
      secrets,
      entity: 'domain-registrators',
      label: 'domain registrator',
      load: (id, ex) => repo.findRow(id, ex),
      columns: { apiKey: (r) => r.apiKey },
    }),
    /** Decrypted credentials for the Namecheap client; never leaves the server. */
    async credentials(id: string) {
      const r = await repo.findRow(id);
      if (!r) throw new NotFoundError('Domain registrator not found');
      return {
        type: r.type,
        endpointUrl: r.endpointUrl,
        apiUsername: r.apiUsername,
        apiKey: r.apiKey ? secrets.decrypt(r.apiKey) : null,
      };
    },
  };
}
export type DomainRegistratorsService = ReturnType<typeof createDomainRegistratorsService>;
