import { describe, expect, it } from 'vitest';
import { CONTENT_SNAPSHOT_MESSAGES as M, contentRestoreOf } from './content-snapshots.ts';
import { auditRevertOf } from './fleet.ts';

const at = Date.parse('2026-11-28T12:00:00Z');
const entry = (action: string, details: Record<string, unknown> | null) => ({ action, entity: 'domains', details });
const snapshot = { id: '0b7c9a4e-3f5e-4c1a-9d2b-8e6f1a2b3c4d', files: 1, bytes: 10, storage: 'db' };

describe('whether a content change can be restored', () => {
  it('offers Restore while the snapshot is kept, and says why not once it expired', () => {
    const e = entry('content_files_save', { snapshot: { ...snapshot, expiresAt: '2026-12-12T12:00:00.000Z' } });
    expect(contentRestoreOf(e, at)).toEqual({ possible: true, reason: null, snapshotId: snapshot.id });
    expect(contentRestoreOf(e, Date.parse('2026-12-12T12:00:00Z'))).toEqual({
      possible: false,
      reason: M.expired('2026-12-12'),
    });
    // The audit entry's `revert` names the snapshot: the web's "Restore" opens its preview.
    const kept = entry('content_files_save', { snapshot: { ...snapshot, expiresAt: '2999-01-01T00:00:00.000Z' } });
    expect(auditRevertOf(kept)).toEqual({ possible: true, reason: null, snapshotId: snapshot.id });
  });

  it('says why when no snapshot was kept, none was recorded, or the change failed', () => {
    expect(contentRestoreOf(entry('content_files_remove', { snapshotSkipped: 'x is a symbolic link' }), at)).toEqual({
      possible: false,
      reason: 'No snapshot was kept (x is a symbolic link): not restorable',
    });
    expect(contentRestoreOf(entry('content_files_upload', { files: 2 }), at)).toEqual({
      possible: false,
      reason: M.notRecorded,
    });
    expect(contentRestoreOf(entry('content_files_copy', { outcome: 'failed' }), at)?.reason).toBe(M.failedChange);
  });

  it('is silent for entries that are not content changes', () => {
    expect(contentRestoreOf(entry('content_files_rename', {}), at)).toBeNull();
    expect(contentRestoreOf(entry('cloudflare_set_ssl', {}), at)).toBeNull();
  });
});
