import { PARSER_DISABLED, type Job, type ParsingStartInput } from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import { ValidationError } from '../../http/errors.ts';
import type { ContentFilesService } from '../content-files/content-files.service.ts';
import type { DomainsService } from '../domains/domains.service.ts';
import type { ProxiesService } from '../proxies/proxies.service.ts';
import type { JobsService } from './jobs.service.ts';

export const PARSING_TEXT = {
  parserDisabled: 'The parser is disabled for this domain. Parse it anyway?',
  noParserUrl: 'This domain has no parser URL: set it on the domain form first',
  noServer: 'This domain has no server: choose one on the domain form first',
  noDomainDir:
    'The domain directory does not exist on its server: create it with Edit Content Files (Create Directory) first',
  noUsableProxy: (region: string) =>
    `The parser proxy region ${region} has no usable proxy: add a proxy to it or check its proxies, or clear the region to fetch directly`,
} as const;

/**
 * Starting a domain's parsing: the domain must name a parser URL, a server with its directory, and (when a parser
 * proxy region is set) a usable proxy there; each missing one is a 400 saying which. A domain whose parser is
 * disabled is refused with reason parser_disabled unless the operator confirms (spec 2 §4).
 */
export function createParsingService(deps: {
  jobs: Pick<JobsService, 'startForDomain'>;
  domains: Pick<DomainsService, 'get'>;
  contentFiles: Pick<ContentFilesService, 'dirInfo'>;
  proxies: Pick<ProxiesService, 'endpointsInRegion'>;
}) {
  return {
    async start(domainId: string, input: ParsingStartInput, actor: Actor): Promise<Job> {
      const domain = await deps.domains.get(domainId);
      if (!domain.parserURL)
        throw new ValidationError(PARSING_TEXT.noParserUrl, { parserURL: 'Set a parser URL' }, 'no_parser_url');
      if (!domain.serverId)
        throw new ValidationError(PARSING_TEXT.noServer, { serverId: 'Choose a server' }, 'no_server');
      if (domain.parserProxyRegionId) {
        const endpoints = await deps.proxies.endpointsInRegion(domain.parserProxyRegionId);
        if (!endpoints.length) {
          const region = domain.parserProxyRegion?.name ?? 'of this domain';
          throw new ValidationError(
            PARSING_TEXT.noUsableProxy(region),
            { parserProxyRegionId: 'No usable proxy in this region' },
            'no_usable_proxy',
          );
        }
      }
      if (!domain.parserEnabled && !input.confirmParserDisabled) {
        const err = new ValidationError(PARSING_TEXT.parserDisabled, undefined, PARSER_DISABLED);
        err.envelope = { reason: PARSER_DISABLED };
        throw err;
      }
      // Last, as it asks the server over SSH (its failures name SSH).
      const dir = await deps.contentFiles.dirInfo(domainId);
      if (!dir.domainDirExists) throw new ValidationError(PARSING_TEXT.noDomainDir, undefined, 'domain_dir_missing');
      return deps.jobs.startForDomain(
        'domains.parsing',
        domainId,
        { confirmParserDisabled: !!input.confirmParserDisabled },
        actor,
      );
    },
  };
}
export type ParsingService = ReturnType<typeof createParsingService>;
