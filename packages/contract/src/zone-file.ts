import { z } from 'zod';
import { ZONE_EXPORT_MAX } from './constants.ts';
import { DnsChangesInputSchema } from './cloud-flare.ts';
import { FleetSelectionSchema } from './fleet.ts';

/** A zone file upload: the largest accepted, and the most records one file may hold. */
export const ZONE_FILE_MAX_BYTES = 5 * 1024 * 1024;
export const ZONE_FILE_MAX_RECORDS = 20_000;
/** Bounds on the work one record takes: its text (a multi-line entry in full) and its character strings. */
export const ZONE_FILE_MAX_ENTRY_BYTES = 16 * 1024;
export const ZONE_FILE_MAX_STRINGS = 128;
/** The longest a file is read for before the preview gives up (the reading runs off the request thread). */
export const ZONE_FILE_READ_SECONDS = 20;
/** Unimportable lines listed in one answer (the count is always exact). */
export const ZONE_FILE_PROBLEMS_MAX = 500;

export const ZONE_FILE_TEXT = {
  tooLarge: `The zone file is larger than ${ZONE_FILE_MAX_BYTES / 1024 / 1024} MB`,
  tooMany: `The zone file holds more than ${ZONE_FILE_MAX_RECORDS} records`,
  empty: 'The zone file is empty',
  tooSlow: `The zone file took longer than ${ZONE_FILE_READ_SECONDS} seconds to read: split it into smaller files`,
  mediaType: 'Send the zone file as text/plain',
  nothingChosen: 'Choose at least one change to apply',
} as const;

/** A record as the zone file says it, in the DNS editor's terms (names in full, no trailing dot). */
export const ZoneFileRecordSchema = z.object({
  line: z.number().int(),
  type: z.string(),
  name: z.string(),
  content: z.string(),
  ttl: z.number().int(),
  /** null when the file does not say (no cf_tags comment): an existing record keeps its own. */
  proxied: z.boolean().nullable(),
  priority: z.number().int().optional(),
});
export type ZoneFileRecord = z.infer<typeof ZoneFileRecordSchema>;

export const ZoneFileCurrentSchema = z.object({
  id: z.string(),
  type: z.string(),
  name: z.string(),
  content: z.string(),
  ttl: z.number().int(),
  proxied: z.boolean(),
  priority: z.number().int().optional(),
});

/** One row of the difference between a zone file and the zone. */
export const ZoneFileDiffRowSchema = z.object({
  key: z.string(),
  kind: z.enum(['added', 'changed', 'removed', 'unchanged']),
  file: ZoneFileRecordSchema.nullable(),
  current: ZoneFileCurrentSchema.nullable(),
  /** What changes on a changed row: content, ttl, proxied, priority. */
  fields: z.array(z.string()),
  /** A note on how the file's record was read (a TTL Cloudflare does not take, …). */
  note: z.string().nullable(),
});
export type ZoneFileDiffRow = z.infer<typeof ZoneFileDiffRowSchema>;

export const ZoneFileProblemSchema = z.object({ line: z.number().int(), text: z.string(), reason: z.string() });
export type ZoneFileProblem = z.infer<typeof ZoneFileProblemSchema>;

export const ZoneFilePreviewSchema = z.object({
  zoneName: z.string(),
  counts: z.object({
    added: z.number().int(),
    changed: z.number().int(),
    removed: z.number().int(),
    unchanged: z.number().int(),
    problems: z.number().int(),
    reported: z.number().int(),
  }),
  rows: z.array(ZoneFileDiffRowSchema),
  /** Lines that cannot be imported, with why (at most ZONE_FILE_PROBLEMS_MAX listed). */
  problems: z.array(ZoneFileProblemSchema),
  /** SOA and apex NS of the file: Cloudflare serves its own, so they are reported, never applied. */
  reported: z.array(ZoneFileProblemSchema),
  /** The changes of every added, changed and removed row, keyed by row, ready for the DNS editor's batch. */
  changes: z.record(
    z.string(),
    z.object({
      deletes: z.array(z.object({ id: z.string() })).optional(),
      patches: z.array(z.record(z.string(), z.unknown())).optional(),
      posts: z.array(z.record(z.string(), z.unknown())).optional(),
    }),
  ),
});
export type ZoneFilePreview = z.infer<typeof ZoneFilePreviewSchema>;

/** POST zone-file/apply: the chosen rows' changes, as the DNS editor sends them. */
export const ZoneFileApplyInputSchema = z.object({
  fileName: z.string().trim().max(255).optional().default(''),
  changes: DnsChangesInputSchema,
});
export type ZoneFileApplyInput = z.input<typeof ZoneFileApplyInputSchema>;

export const ZONE_EXPORT_TEXT = {
  tooMany: `Export at most ${ZONE_EXPORT_MAX} domains' zone files at once`,
  none: 'Select at least one domain with a Cloudflare zone',
  notReady: 'The export is not finished',
} as const;
export const ZoneFileExportResultSchema = z.object({ jobId: z.string() });
/** POST /api/zone-files/exports: the same selection a fleet plan takes. */
export const ZoneFileExportInputSchema = z.object({ selection: FleetSelectionSchema });
export type ZoneFileExportInput = z.input<typeof ZoneFileExportInputSchema>;
