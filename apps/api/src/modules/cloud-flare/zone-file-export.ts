import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import { ZipFile } from 'yazl';
import { z } from 'zod';
import {
  IdSchema,
  ZONE_EXPORT_MAX,
  ZONE_EXPORT_TEXT,
  type DomainFilter,
  type FleetSelection,
} from '@fleetdesk/contract';
import type { Db } from '../../db/client.ts';
import { domains as domainsTable, zoneFileExports } from '../../db/schema/index.ts';
import type { Actor } from '../../http/context.ts';
import { NotFoundError, ValidationError } from '../../http/errors.ts';
import { defineJob, PermanentJobError, type JobContext, type JobEngine } from '../../lib/jobs.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { CloudflareRouting } from './cloudflare-routing.ts';
import type { ZoneFileService } from './zone-file.service.ts';

export const ZONE_EXPORT_JOB = 'zone-files.export';
const FAILED_LIST_MAX = 200;

const Payload = z.object({ domainIds: z.array(IdSchema).min(1).max(ZONE_EXPORT_MAX) });
type Payload = z.infer<typeof Payload>;

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 500);

/** The zip of a finished export, streamed from the database (any API process can serve it). */
async function zipOf(zip: ZipFile): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve());
    zip.outputStream.on('error', reject);
  });
  zip.end();
  await done;
  return Buffer.concat(chunks);
}

/**
 * Zone files of a selection as one zip (decision 043): a job that exports each zone through the same service
 * as the single export, as background Cloudflare calls (each waits for its budget slot), and keeps the zip
 * for download. A zone that cannot be read is listed in FAILED.txt inside the zip, the others still go in.
 */
export function createZoneFileExports(deps: {
  db: Db;
  engine: () => JobEngine;
  zoneFile: () => ZoneFileService;
  routing: Pick<CloudflareRouting, 'background'>;
  audit: AuditService;
  idsForFilter: (filter: DomainFilter, limit: number) => Promise<string[]>;
  budgetWaitMs: number;
}) {
  const job = defineJob<Payload>({
    kind: ZONE_EXPORT_JOB,
    area: 'cnv:domains',
    payload: Payload,
    retry: { limit: 1, delaySeconds: 5, backoff: false },
    timeoutSeconds: 6 * 60 * 60,
    async handler(ctx: JobContext<Payload>) {
      const ids = ctx.payload.domainIds;
      const zip = new ZipFile();
      const failed: { domain: string; error: string }[] = [];
      let done = 0;
      let zones = 0;
      for (const id of ids) {
        if (ctx.signal.aborted) throw ctx.signal.reason ?? new Error('Stopped');
        try {
          const f = await deps.routing.background(deps.budgetWaitMs, () => deps.zoneFile().exportZone(id));
          zip.addBuffer(Buffer.from(f.text), f.fileName, { mtime: new Date() });
          zones++;
        } catch (err) {
          const [row] = await deps.db
            .select({ name: domainsTable.domainName })
            .from(domainsTable)
            .where(eq(domainsTable.id, id));
          failed.push({ domain: row?.name ?? id, error: messageOf(err) });
        }
        done++;
        await ctx.progress({ done, total: ids.length, unit: 'zones', message: `${done} of ${ids.length}` });
      }
      // A zip with no zone in it is not an export: the job fails with the first zone's reason, offering nothing.
      if (!zones && failed.length)
        throw new PermanentJobError(
          `No zone file exported: every zone failed; the first, ${failed[0]!.domain}: ${failed[0]!.error}`,
        );
      if (failed.length) {
        const text = failed.map((f) => `${f.domain}\t${f.error}`).join('\n');
        zip.addBuffer(Buffer.from(`Zones that could not be exported:\n${text}\n`), 'FAILED.txt', { mtime: new Date() });
      }
      const content = await zipOf(zip);
      const fileName = `zone-files-${new Date().toISOString().slice(0, 10)}.zip`;
      await deps.db
        .insert(zoneFileExports)
        .values({ jobId: ctx.jobId, fileName, content: content.toString('base64') })
        .onConflictDoUpdate({ target: zoneFileExports.jobId, set: { fileName, content: content.toString('base64') } });
      return {
        fileName,
        zones,
        bytes: content.length,
        failedCount: failed.length,
        failed: failed.slice(0, FAILED_LIST_MAX),
      };
    },
  });

  return {
    job,
    /** Queues the export of the selection's zones. */
    async start(selection: FleetSelection, actor: Actor) {
      const sel = selection as { ids?: string[]; filter?: DomainFilter };
      const ids = sel.ids
        ? [...new Set(sel.ids)]
        : await deps.idsForFilter(sel.filter ?? ({} as DomainFilter), ZONE_EXPORT_MAX + 1);
      if (ids.length > ZONE_EXPORT_MAX)
        throw new ValidationError(ZONE_EXPORT_TEXT.tooMany, { selection: ZONE_EXPORT_TEXT.tooMany });
      // Only domains with a zone have a zone file: a selection without any is refused, not zipped empty (the
      // others of a selection with some are listed in FAILED.txt, saying why).
      const withZone: string[] = [];
      for (let i = 0; i < ids.length && !withZone.length; i += 1000) {
        const rows = await deps.db
          .select({ id: domainsTable.id })
          .from(domainsTable)
          .where(and(inArray(domainsTable.id, ids.slice(i, i + 1000)), isNotNull(domainsTable.cloudZoneId)));
        withZone.push(...rows.map((r) => r.id));
      }
      if (!withZone.length) throw new ValidationError(ZONE_EXPORT_TEXT.none, { selection: ZONE_EXPORT_TEXT.none });
      const row = await deps.engine().enqueue(ZONE_EXPORT_JOB, { domainIds: ids }, { createdBy: actor.username });
      await deps.audit.record(actor, {
        action: 'export_zone_files',
        entity: 'jobs',
        entityId: row.id,
        details: { jobNo: row.jobNo, domains: ids.length },
      });
      return { jobId: row.id };
    },
    /** The finished export's zip; 404 until the job has finished. */
    async download(jobId: string) {
      const [r] = await deps.db.select().from(zoneFileExports).where(eq(zoneFileExports.jobId, jobId));
      if (!r) throw new NotFoundError(ZONE_EXPORT_TEXT.notReady);
      return { fileName: r.fileName, content: Buffer.from(r.content, 'base64') };
    },
  };
}
export type ZoneFileExports = ReturnType<typeof createZoneFileExports>;
