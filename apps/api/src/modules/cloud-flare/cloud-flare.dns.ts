import { dnsRecordProblems, type DnsChanges, type DnsChangesResult, type DnsRecord } from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import { UpstreamError, ValidationError } from '../../http/errors.ts';
import { DnsBatchPartError, type CfDnsBatch, type CfDnsRecord } from '../../integrations/cloudflare/index.ts';
import { dnsUndo } from '../fleet/fleet.undo.ts';
import { CLOUD_FLARE_TEXT, capList, type CloudFlareCalls, type Ctx, type DomainRef } from './cloud-flare.context.ts';

/** Records per DNS batch on every plan (the Free plan's limit; paid plans take more, cloudflare.md §11). */
const MIN_DNS_BATCH_LIMIT = 200;

/** The fields a batch can write back; the rest of a record (id, proxiable, meta, dates) is Cloudflare's. */
const RESTORABLE_RECORD_FIELDS = [
  'type',
  'name',
  'content',
  'ttl',
  'proxied',
  'priority',
  'comment',
  'tags',
  'settings',
  'data',
];
const restorable = (r: CfDnsRecord): Record<string, unknown> => {
  const src = r as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of RESTORABLE_RECORD_FIELDS) if (src[k] !== undefined && src[k] !== null) out[k] = src[k];
  return out;
};

type DnsReportLine = {
  action: 'add' | 'change' | 'delete';
  id?: string;
  type?: string;
  name?: string;
  outcome: 'applied, then undone' | 'applied, undo failed' | 'not applied (its batch failed)' | 'not sent';
};

const toDnsRecord = (r: CfDnsRecord): DnsRecord => {
  const out: DnsRecord = {
    id: r.id,
    type: r.type,
    name: r.name,
    content: r.content,
    proxied: r.proxied,
    ttl: r.ttl,
    proxiable: r.proxiable,
  };
  if (typeof r.priority === 'number') out.priority = r.priority;
  return out;
};

/** Records an entry keeps for undo at most (before and after together); a larger change says it was not kept. */
const UNDO_RECORDS_MAX = 2000;
const undoDetails = (zone: DnsRecord[], batch: DnsChanges, result: DnsChangesResult['result']) => {
  const step = dnsUndo(zone, batch, { result, batches: 0, message: '' });
  if (step.area === 'dns' && step.before.length + step.after.length > UNDO_RECORDS_MAX)
    return { undoSkipped: `more than ${UNDO_RECORDS_MAX} records` };
  return { undo: [step] };
};

/** DNS: the zone's records and one all-or-nothing change (decision 014). */
export function cloudFlareDns({ cf, contextOf, forCloud, audited }: CloudFlareCalls) {
  /**
   * A later part of a split DNS change failed: applies the inverse of the parts that went through (new records
   * deleted, changed records put back as they were, deleted records created again) and returns the error to
   * raise, which says what happened and carries the record-by-record report for the audit entry.
   */
  const undoParts = async (
    ctx: Ctx & { zoneId: string },
    batch: { deletes: { id: string }[]; patches: { id: string }[]; posts: { type: string; name: string }[] },
    before: CfDnsRecord[],
    err: DnsBatchPartError,
    limit: number,
  ): Promise<UpstreamError> => {
    const was = new Map(before.map((r) => [r.id, r]));
    const applied = err.appliedInput;
    const missing: string[] = [];
    const undo: CfDnsBatch = { deletes: [], puts: [], posts: [] };
    for (const created of err.applied.posts) undo.deletes!.push({ id: created.id });
    for (const p of applied.patches ?? []) {
      const old = was.get(p.id);
      if (old) undo.puts!.push({ id: p.id, ...(restorable(old) as { type: string; name: string; content: string }) });
      else missing.push(p.id);
    }
    for (const d of applied.deletes ?? []) {
      const old = was.get(d.id);
      if (old) undo.posts!.push(restorable(old) as { type: string; name: string; content: string });
      else missing.push(d.id);
    }
    let undoError = missing.length ? `the earlier state of ${missing.join(', ')} was not known` : '';
    if (!undoError) {
      try {
        await cf.batchDns(ctx.creds, ctx.zoneId, undo, { limit });
      } catch (e) {
        undoError = e instanceof Error ? e.message : String(e);
      }
    }
    const appliedCount = err.part - 1;
    const appliedRecords =
      (applied.deletes?.length ?? 0) + (applied.patches?.length ?? 0) + (applied.posts?.length ?? 0);
    // Ops are sent in the order deletes, patches, posts; the first appliedRecords of them went through,
    // the next `limit` were in the part that failed, the rest were never sent.
    const ops: Omit<DnsReportLine, 'outcome'>[] = [
      ...batch.deletes.map((d) => ({
        action: 'delete' as const,
        id: d.id,
        type: was.get(d.id)?.type,
        name: was.get(d.id)?.name,
      })),
      ...batch.patches.map((p) => ({
        action: 'change' as const,
        id: p.id,
        type: was.get(p.id)?.type,
        name: was.get(p.id)?.name,
      })),
      ...batch.posts.map((p) => ({ action: 'add' as const, type: p.type, name: p.name })),
    ];
    const report: DnsReportLine[] = ops.map((op, i) => ({
      ...op,
      outcome:
        i < appliedRecords
          ? undoError
            ? 'applied, undo failed'
            : 'applied, then undone'
          : i < appliedRecords + limit
            ? 'not applied (its batch failed)'
            : 'not sent',
    }));
    const partsText = appliedCount === 1 ? 'part 1' : `parts 1-${appliedCount}`;
    const summary = undoError
      ? CLOUD_FLARE_TEXT.dnsUndoFailed(partsText, appliedRecords, undoError)
      : CLOUD_FLARE_TEXT.dnsUndone(partsText, appliedRecords);
    const out = new UpstreamError('Cloudflare', `${err.message}. ${summary}`, {
      code: undoError ? 'dns_change_partly_applied' : err.code,
      upstreamStatus: err.upstreamStatus,
      upstreamCode: err.upstreamCode,
    });
    return Object.assign(out, {
      auditDetails: {
        split: { part: err.part, parts: err.parts, limit },
        undone: !undoError,
        ...(undoError ? { undoError } : {}),
        records: capList(report),
      },
    });
  };

  return {
    async listDnsRecords(domainId: DomainRef, actor?: Actor): Promise<{ result: DnsRecord[] }> {
      const ctx = await contextOf(domainId, true, actor);
      const records = await forCloud(ctx, () => cf.listDnsRecords(ctx.creds, ctx.zoneId));
      return { result: records.map(toDnsRecord) };
    },

    /**
     * One change, all or nothing from the operator's view (decision 014). Cloudflare's batch is atomic, but one
     * batch holds at most the zone plan's limit; a larger change is split, and when a later part fails the parts
     * already applied are undone with their inverse (the records as they were are read first), and the outcome of
     * every record goes to the audit entry. An empty change sends nothing.
     */
    async changeDnsRecords(
      domainId: string,
      input: DnsChanges,
      actor: Actor,
      /** The zone's records as the caller just read them (a fleet step); else read here, for the entry's undo. */
      opts: { zoneBefore?: DnsRecord[] } = {},
    ): Promise<DnsChangesResult> {
      const ctx = await contextOf(domainId, true, actor);
      const batch = { deletes: input.deletes, patches: input.patches, posts: input.posts };
      // Cloudflare's own rules (the editor and fleet plans check the same ones), before anything is sent.
      const fields: Record<string, string> = {};
      for (const [list, rows] of [
        ['posts', batch.posts],
        ['patches', batch.patches],
      ] as const)
        rows.forEach((r, i) => {
          for (const p of dnsRecordProblems(r, ctx.domain.domainName)) fields[`${list}.${i}.${p.field}`] ??= p.message;
        });
      const firstProblem = Object.values(fields)[0];
      if (firstProblem) throw new ValidationError(firstProblem, fields, 'dns_record_invalid');
      const total = batch.deletes.length + batch.patches.length + batch.posts.length;
      if (total === 0) {
        return {
          result: { deletes: [], patches: [], posts: [] },
          batches: 0,
          message: CLOUD_FLARE_TEXT.dnsNothingToChange,
        };
      }
      const sent = {
        zoneId: ctx.zoneId,
        deletes: capList(batch.deletes),
        patches: capList(batch.patches),
        posts: capList(batch.posts),
      };
      let limit = MIN_DNS_BATCH_LIMIT;
      const r = await audited(actor, ctx, 'change_dns_records', sent, () =>
        forCloud(ctx, async () => {
          // Every plan takes the Free plan's 200; only a larger change needs to know the zone's own limit.
          if (total > MIN_DNS_BATCH_LIMIT) limit = cf.batchLimitFor(await cf.getZone(ctx.creds, ctx.zoneId));
          const before = total > limit || !opts.zoneBefore ? await cf.listDnsRecords(ctx.creds, ctx.zoneId) : [];
          const zone = opts.zoneBefore ?? before.map(toDnsRecord);
          let res;
          try {
            res = await cf.batchDns(ctx.creds, ctx.zoneId, batch, { limit });
          } catch (err) {
            if (err instanceof DnsBatchPartError) throw await undoParts(ctx, batch, before, err, limit);
            throw err;
          }
          const answer = {
            batches: res.batches,
            limit,
            deletes: capList(res.deletes.map((x) => x.id)),
            patches: capList(res.patches.map(toDnsRecord)),
            posts: capList(res.posts.map(toDnsRecord)),
          };
          const result = {
            deletes: res.deletes.map(toDnsRecord),
            patches: res.patches.map(toDnsRecord),
            posts: res.posts.map(toDnsRecord),
          };
          return { value: res, answer, extra: undoDetails(zone, batch, result) };
        }),
      );
      const parts = [
        `${batch.posts.length} added`,
        `${batch.patches.length} changed`,
        `${batch.deletes.length} deleted`,
      ].join(', ');
      const split =
        r.batches > 1
          ? ` in ${r.batches} batches (this zone's plan takes at most ${limit} records per batch; had one failed, the others would have been undone)`
          : '';
      return {
        result: {
          deletes: r.deletes.map(toDnsRecord),
          patches: r.patches.map(toDnsRecord),
          posts: r.posts.map(toDnsRecord),
        },
        batches: r.batches,
        message: `DNS records saved: ${parts}${split}`,
      };
    },
  };
}
