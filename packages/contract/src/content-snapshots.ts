import { z } from 'zod';
import { IdSchema } from './common.ts';
import { CONTENT_PATH_MAX } from './content-files.ts';

/**
 * Content snapshots (issue 44, decision 078): before a content change (a save, a removal, an upload, a copy onto a
 * domain, a restore) the files it will change are kept; "Restore" puts them back, previewed as the list of files
 * that will change.
 */
export const CONTENT_SNAPSHOT_MESSAGES = {
  notFound: 'Snapshot not found',
  expired: (on: string) => `The snapshot expired on ${on}: not restorable`,
  pruned: (why: string) => `The snapshot was removed (${why}): not restorable`,
  skipped: (why: string) => `No snapshot was kept (${why}): not restorable`,
  notRecorded: 'No snapshot was recorded for this change (it predates snapshots): not restorable',
  failedChange: 'The change failed before it changed a file: there is nothing to restore',
  domainGone: 'The domain no longer exists: nothing to restore',
  serverGone: 'The server the snapshot was taken on no longer exists: nothing to restore',
  serverMoved: 'The domain is on another server now: the snapshot belongs to its former server',
  dirGone: 'The domain directory no longer exists on its server: create it first',
  nothing: 'Every file is as before or changed since: nothing to restore (tick a changed file to restore it anyway)',
  changedSince: 'Changed since: not reverted',
  forced: 'Ticked: restored even though it changed since',
  notEmpty: 'The directory holds files added since: left in place',
  onlyChanged: (path: string) => `Only a file changed since can be ticked (${path})`,
} as const;

/** What a path held: nothing, a directory, or a file of this size and SHA-256. */
export const ContentFileStateSchema = z.object({
  exists: z.boolean(),
  type: z.enum(['file', 'directory']).nullable(),
  size: z.number().nullable(),
  sha256: z.string().nullable(),
  /** Seconds since the epoch (the file's modification time), where read. */
  mtime: z.number().nullable(),
});
export type ContentFileState = z.infer<typeof ContentFileStateSchema>;

export const CONTENT_RESTORE_STATUSES = ['restore', 'same', 'changed'] as const;
export type ContentRestoreStatus = (typeof CONTENT_RESTORE_STATUSES)[number];

/** One path of a restore's preview: what the change found, what it wrote, what is there now, and what Restore does. */
export const ContentRestoreItemSchema = z.object({
  path: z.string(),
  /** restore: as the change left it, put back; same: as before already; changed: changed since, left unless ticked. */
  status: z.enum(CONTENT_RESTORE_STATUSES),
  /** What Restore does to the path: write the kept bytes, remove what the change created, or make a directory. */
  does: z.enum(['write', 'remove', 'mkdir', 'rmdir']),
  before: ContentFileStateSchema,
  written: ContentFileStateSchema,
  now: ContentFileStateSchema,
});
export type ContentRestoreItem = z.infer<typeof ContentRestoreItemSchema>;

export const ContentRestorePreviewSchema = z.object({
  _id: IdSchema,
  domainId: IdSchema.nullable(),
  domainName: z.string(),
  /** The change it was taken before (save, remove, upload, copy, restore). */
  action: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
  storage: z.enum(['db', 'server']),
  files: z.number(),
  bytes: z.number(),
  restorable: z.boolean(),
  /** Why not, where not restorable (expired, pruned, the domain or server gone). */
  reason: z.string().nullable(),
  counts: z.object({ restore: z.number(), same: z.number(), changed: z.number() }),
  items: z.array(ContentRestoreItemSchema),
});
export type ContentRestorePreview = z.infer<typeof ContentRestorePreviewSchema>;

/** No body at all is a restore with nothing ticked. */
export const ContentRestoreInputSchema = z.preprocess(
  (v) => v ?? {},
  z
    .object({
      /** Paths changed since that are restored anyway (ticked by the operator). */
      force: z
        .array(z.string().max(CONTENT_PATH_MAX, `A path can be at most ${CONTENT_PATH_MAX} characters`))
        .max(20_000, 'At most 20000 paths can be ticked')
        .optional()
        .default([]),
    })
    .strict(),
);
export type ContentRestoreInput = z.infer<typeof ContentRestoreInputSchema>;

export const ContentRestoreResultSchema = z.object({
  restored: z.array(z.string()),
  same: z.number(),
  /** Changed since and not ticked: left alone. */
  left: z.array(z.object({ path: z.string(), reason: z.string() })),
  failed: z.array(z.object({ path: z.string(), error: z.string() })),
  /** The restore's own snapshot (a restore is itself restorable), or why none was kept. */
  snapshotId: IdSchema.nullable(),
  snapshotSkipped: z.string().nullable(),
});
export type ContentRestoreResult = z.infer<typeof ContentRestoreResultSchema>;

/** The audit actions of content changes that keep a snapshot (their entries carry `details.snapshot`). */
export const CONTENT_RESTORABLE_ACTIONS: readonly string[] = [
  'content_files_save',
  'content_files_remove',
  'content_files_upload',
  'content_files_copy',
  'content_files_restore',
];

/** What an audit entry's `details.snapshot` holds. */
export type ContentSnapshotRef = { id: string; files: number; bytes: number; expiresAt: string; storage: string };

/**
 * Whether a content change's audit entry can be restored, and why not (null when the entry is not a content
 * change). Expiry is told from the entry; a snapshot pruned early for space says so in its preview.
 */
export function contentRestoreOf(
  e: { action: string; details: Record<string, unknown> | null },
  now = Date.now(),
): { possible: boolean; reason: string | null; snapshotId?: string } | null {
  if (!CONTENT_RESTORABLE_ACTIONS.includes(e.action)) return null;
  const d = e.details ?? {};
  const snap = d.snapshot as Partial<ContentSnapshotRef> | undefined;
  if (snap && typeof snap.id === 'string') {
    const expires = typeof snap.expiresAt === 'string' ? Date.parse(snap.expiresAt) : NaN;
    if (Number.isFinite(expires) && expires <= now)
      return { possible: false, reason: CONTENT_SNAPSHOT_MESSAGES.expired(snap.expiresAt!.slice(0, 10)) };
    return { possible: true, reason: null, snapshotId: snap.id };
  }
  if (typeof d.snapshotSkipped === 'string')
    return { possible: false, reason: CONTENT_SNAPSHOT_MESSAGES.skipped(d.snapshotSkipped) };
  if (d.outcome === 'failed') return { possible: false, reason: CONTENT_SNAPSHOT_MESSAGES.failedChange };
  return { possible: false, reason: CONTENT_SNAPSHOT_MESSAGES.notRecorded };
}
