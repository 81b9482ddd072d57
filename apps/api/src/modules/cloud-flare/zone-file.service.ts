import {
  CLOUD_FLARE_MESSAGES,
  ZONE_FILE_TEXT,
  type DnsChanges,
  type DnsChangesResult,
  type ZoneFilePreview,
} from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import { UpstreamError, ValidationError } from '../../http/errors.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { DomainsService } from '../domains/domains.service.ts';
import type { CloudFlareService } from './cloud-flare.service.ts';
import { createZoneFileReader, readUpload, type ZoneFileReader } from './zone-file-reader.ts';
import { diffZoneFile, renderZoneFile } from './zone-file.ts';

/** Export and import of a domain's zone as a BIND file, through the DNS editor's own reads and batches. */
export function createZoneFileService(deps: {
  cloudFlare: Pick<CloudFlareService, 'zoneInfo' | 'listDnsRecords' | 'changeDnsRecords'>;
  domains: Pick<DomainsService, 'get'>;
  audit: AuditService;
  now?: () => Date;
  /** Reads uploads off the request thread (one is made when not given). */
  reader?: ZoneFileReader;
}) {
  const { cloudFlare, domains, audit } = deps;
  const reader = deps.reader ?? createZoneFileReader();
  const now = deps.now ?? (() => new Date());

  const zoneDomain = async (domainId: string) => {
    const d = await domains.get(domainId);
    if (!d.cloudId) throw new ValidationError(CLOUD_FLARE_MESSAGES.noCloud, undefined, 'no_cloud');
    if (!d.cloudZoneId) throw new ValidationError(CLOUD_FLARE_MESSAGES.noZone, undefined, 'no_cloud_zone');
    return d;
  };

  return {
    /** The zone as Cloudflare serves it, as a BIND file, and the name to save it under. */
    async exportZone(domainId: string, actor?: Actor): Promise<{ fileName: string; text: string }> {
      const d = await zoneDomain(domainId);
      const info = await cloudFlare.zoneInfo(domainId, actor);
      const zone = info.data.result;
      if (info.errorMessage || !zone) throw new UpstreamError('Cloudflare', info.errorMessage ?? 'Cloudflare: no zone');
      const { result } = await cloudFlare.listDnsRecords(domainId, actor);
      const at = now();
      const text = renderZoneFile({
        zoneName: d.domainName,
        nameServers: zone.name_servers,
        records: result,
        serial: Math.floor(at.getTime() / 1000),
        exportedAt: at,
      });
      return { fileName: `${d.domainName}.txt`, text };
    },

    /** The difference of an uploaded zone file against the zone; nothing is written. The file is read off-thread. */
    async preview(domainId: string, body: AsyncIterable<Buffer | string>, actor?: Actor): Promise<ZoneFilePreview> {
      const d = await zoneDomain(domainId);
      const parsed = await reader.parse(await readUpload(body), d.domainName);
      const { result } = await cloudFlare.listDnsRecords(domainId, actor);
      return diffZoneFile(d.domainName, result, parsed);
    },

    /** Applies the chosen changes in the DNS editor's batch (all or nothing), audited as a zone file import. */
    async apply(domainId: string, fileName: string, changes: DnsChanges, actor: Actor): Promise<DnsChangesResult> {
      const d = await zoneDomain(domainId);
      const total = changes.deletes.length + changes.patches.length + changes.posts.length;
      if (!total) throw new ValidationError(ZONE_FILE_TEXT.nothingChosen, { changes: ZONE_FILE_TEXT.nothingChosen });
      const base = { action: 'import_zone_file', entity: 'domains', entityId: d._id };
      const details = {
        domainName: d.domainName,
        fileName,
        added: changes.posts.length,
        changed: changes.patches.length,
        removed: changes.deletes.length,
      };
      try {
        const r = await cloudFlare.changeDnsRecords(domainId, changes, actor);
        await audit.record(actor, { ...base, details: { ...details, outcome: 'ok', batches: r.batches } });
        return r;
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        await audit
          .record(actor, { ...base, details: { ...details, outcome: 'failed', error } })
          .catch(() => undefined);
        throw err;
      }
    },

    /** Ends the reader's thread. */
    close: () => reader.close(),
  };
}
export type ZoneFileService = ReturnType<typeof createZoneFileService>;
