import type { Job } from '@fleetdesk/contract';
import { formatBytes } from '../../lib/format.ts';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function copySummary(r: Record<string, unknown>): string {
  const failed = (r.failed as unknown[] | undefined)?.length ?? 0;
  return (
    `${plural(Number(r.files ?? 0), 'file')} and ${plural(Number(r.directories ?? 0), 'directory', 'directories')} copied ` +
    `(${formatBytes(Number(r.bytes ?? 0))})${failed ? `, ${plural(failed, 'file')} failed` : ''}`
  );
}

/** Progress as a percentage, or null while the total is unknown. */
export function progressPercent(job: Pick<Job, 'progress' | 'state'>): number | null {
  if (job.state === 'completed') return 100;
  const p = job.progress;
  if (p?.bytesTotal) return Math.min(100, Math.round(((p.bytesDone ?? 0) / p.bytesTotal) * 100));
  if (p?.total) return Math.min(100, Math.round(((p.done ?? 0) / p.total) * 100));
  return null;
}

/** "12 of 40 files · 3 MB of 10 MB", from whatever the job reports. */
export function progressText(job: Pick<Job, 'progress'>): string {
  const p = job.progress;
  if (!p) return '';
  // Jobs over many domains word their counts themselves, each apart (changed, already matched, skipped, failed).
  if (p.tally && p.message) return p.message;
  const parts: string[] = [];
  if (p.done !== undefined) parts.push(`${p.done}${p.total != null ? ` of ${p.total}` : ''} ${p.unit ?? ''}`.trim());
  if (p.bytesDone !== undefined)
    parts.push(`${formatBytes(p.bytesDone)}${p.bytesTotal != null ? ` of ${formatBytes(p.bytesTotal)}` : ''}`);
  if (p.message) parts.push(p.message);
  return parts.join(' · ');
}
