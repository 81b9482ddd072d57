import crypto from 'node:crypto';
import path from 'node:path';
import {
  CONTENT_SNAPSHOT_MESSAGES as M,
  type ContentFileState,
  type ContentRestoreInput,
  type ContentRestoreItem,
  type ContentRestorePreview,
  type ContentRestoreResult,
  type ContentSnapshotRef,
} from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../http/errors.ts';
import type { SshPool, SshTarget } from '../../files/ssh/index.ts';
import {
  clientSegments,
  domainDirPath,
  hashingStream,
  normaliseRoot,
  openContentFs,
  type ContentFs,
  type WrittenState,
} from '../../files/content/index.ts';
import { createKeyedQueue } from '../../lib/keyed-queue.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { DomainsRepository } from '../domains/domains.repository.ts';
import type { ServersRepository } from '../servers/servers.repository.ts';
import type { ServersService } from '../servers/servers.service.ts';
import type { ContentSnapshotsRepository, NewSnapshotFile, SnapshotFileRow } from './content-snapshots.repository.ts';

/** The directory, next to the domain directories under a server's domainsPath, that holds the larger snapshots. */
export const SNAPSHOTS_DIR = '.fleetdesk-snapshots';

export type ContentSnapshotLimits = {
  /** A change's kept bytes up to this are stored in the database. */
  dbBytes: number;
  /** Most bytes one snapshot keeps; above it none is kept (the change still runs). */
  snapshotBytes: number;
  /** Most bytes of snapshots kept on one server; the oldest are pruned first. */
  serverBytes: number;
  /** Most paths one snapshot covers. */
  maxFiles: number;
  keepMs: number;
};

/** What an audit entry records of a change's snapshot: the reference, or why none was kept. */
export type SnapshotOutcome = { snapshot: ContentSnapshotRef } | { snapshotSkipped: string };

type Entry = {
  seq: number;
  path: string;
  type: 'file' | 'directory';
  beforeExists: boolean;
  beforeSize: number | null;
  beforeSha: string | null;
  content: Buffer | null;
  after?: WrittenState;
};

/** A domain's site on its server, as a snapshot needs it. */
type Site = { serverId: string; base: string; dir: string; target: SshTarget; fs: ContentFs };

const sha256 = (b: Buffer | string) => crypto.createHash('sha256').update(b).digest('hex');
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
const mb = (n: number) =>
  n >= 1024 * 1024 ? `${Math.round((n / 1024 / 1024) * 10) / 10} MB` : `${Math.round(n / 1024)} KB`;
const rel = (p: string) => clientSegments(p).join('/');
const NOTHING: ContentFileState = { exists: false, type: null, size: null, sha256: null, mtime: null };
/** Expired snapshots pruned per new snapshot: a cheap, bounded sweep. */
const PRUNE_BATCH = 20;

/**
 * Content snapshots (issue 44, decision 078): before a change, the files it will change are kept (small ones in the
 * database, larger ones in `<domainsPath>/.fleetdesk-snapshots/<id>` on the server), with what the change wrote;
 * Restore previews the paths (as written → put back, as before → same, anything else → changed since, left alone
 * unless ticked) and puts them back as a change of its own, with its own snapshot.
 */
export function createContentSnapshotsService(deps: {
  repo: ContentSnapshotsRepository;
  ssh: SshPool;
  domainsRepo: Pick<DomainsRepository, 'findRow'>;
  serversRepo: Pick<ServersRepository, 'findRow'>;
  servers: Pick<ServersService, 'sshTarget'>;
  audit: Pick<AuditService, 'record'>;
  /** Seals the bytes kept in the database: a site's files may hold its own credentials (a CMS's config). */
  secrets: SecretBox;
  limits: ContentSnapshotLimits;
  now?: () => number;
}) {
  const { repo, ssh, limits } = deps;
  const seal = (b: Buffer) => Buffer.from(deps.secrets.encrypt(b.toString('base64')));
  const unseal = (b: Buffer) => Buffer.from(deps.secrets.decrypt(b.toString()), 'base64');
  const now = deps.now ?? Date.now;

  const fsAt = (target: SshTarget, root: string) => openContentFs({ ssh, target, root });
  const restoring = createKeyedQueue();

  async function siteOf(domainId: string): Promise<Site | string> {
    const d = await deps.domainsRepo.findRow(domainId);
    if (!d) return M.domainGone;
    if (!d.serverId) return 'the domain has no server';
    const server = await deps.serversRepo.findRow(d.serverId);
    if (!server?.domainsPath) return 'its server has no domains path';
    const base = normaliseRoot(server.domainsPath);
    const target = await deps.servers.sshTarget(d.serverId);
    const dir = domainDirPath(base, d.domainName);
    return { serverId: d.serverId, base, dir, target, fs: fsAt(target, dir) };
  }

  /** Removes a server-kept snapshot's directory and drops its rows' bytes (best effort on the server). */
  async function pruneOne(
    s: { id: string; storage: string; remoteDir: string | null; serverId: string | null },
    why: string,
  ) {
    if (s.storage === 'server' && s.remoteDir && s.serverId) {
      try {
        const target = await deps.servers.sshTarget(s.serverId);
        await fsAt(target, path.posix.dirname(s.remoteDir)).remove(path.posix.basename(s.remoteDir));
      } catch {
        // The server is unreachable or the directory went already: the row is pruned all the same.
      }
    }
    await repo.prune(s.id, why);
  }

  async function pruneExpired() {
    for (const s of await repo.expired(new Date(now()), PRUNE_BATCH)) await pruneOne(s, 'expired');
  }

  /**
   * A snapshot of one change on one domain. Call `keep` for each path before the change touches it and `wrote`
   * after; `finish` stores what changed and answers what the audit entry records. Never throws for the snapshot's
   * own trouble: a snapshot that cannot be kept says why (`snapshotSkipped`) and the change goes on.
   */
  async function begin(domainId: string, action: string) {
    await pruneExpired().catch(() => undefined);
    const site = await siteOf(domainId).catch((err: unknown) => messageOf(err));
    const domain = await deps.domainsRepo.findRow(domainId);
    const id = crypto.randomUUID();
    const entries = new Map<string, Entry>();
    let skipped: string | null = typeof site === 'string' ? site : null;
    let rootExists: boolean | null = null;
    let kept = 0;
    let store: ContentFs | null = null;
    const remoteDir = typeof site === 'string' ? null : path.posix.join(site.base, SNAPSHOTS_DIR, id);

    const skip = (why: string) => {
      skipped ??= why;
    };
    /** Moves to the server's snapshot directory: what is in memory goes there first. */
    const toServer = async (s: Site): Promise<ContentFs> => {
      if (store) return store;
      await fsAt(s.target, s.base).mkdirp(`${SNAPSHOTS_DIR}/${id}`);
      store = fsAt(s.target, remoteDir!);
      for (const e of entries.values()) {
        if (!e.content) continue;
        await store.writeAtomic(`/${e.seq}`, e.content, { mkdirs: false });
        e.content = null;
      }
      return store;
    };

    const keepOne = async (s: Site, p: string, hint: 'file' | 'directory') => {
      if (entries.size >= limits.maxFiles) return skip(`the change touches more than ${limits.maxFiles} files`);
      rootExists ??= await s.fs.rootExists();
      const st = rootExists ? await s.fs.stat(p) : null;
      if (st?.symlink) return skip(`${p} is a symbolic link, which is not kept`);
      const e: Entry = {
        seq: entries.size,
        path: p,
        type: st?.type ?? hint,
        beforeExists: !!st,
        beforeSize: null,
        beforeSha: null,
        content: null,
      };
      if (st?.type === 'file') {
        if (kept + st.size > limits.snapshotBytes)
          return skip(`the files it replaces are larger than ${mb(limits.snapshotBytes)}`);
        if (!store && kept + st.size <= limits.dbBytes) {
          e.content = await s.fs.readFile(p, limits.dbBytes - kept);
          e.beforeSha = sha256(e.content);
          e.beforeSize = e.content.length;
        } else {
          const out = await toServer(s);
          const { stream } = await s.fs.readStream(p);
          const h = hashingStream();
          stream.once('error', (err) => h.stream.destroy(err));
          await out.writeAtomic(`/${e.seq}`, stream.pipe(h.stream), {
            mkdirs: false,
            maxBytes: limits.snapshotBytes - kept,
            label: `The snapshot of ${p}`,
          });
          const { sha256: sha, bytes } = h.done();
          e.beforeSha = sha;
          e.beforeSize = bytes;
        }
        kept += e.beforeSize;
      }
      entries.set(p, e);
    };

    const recorder = {
      /** Keeps what the path holds now (a file's bytes, a directory, or nothing), once per path. */
      async keep(clientPath: string, hint: 'file' | 'directory' = 'file') {
        if (skipped || typeof site === 'string') return;
        const p = rel(clientPath);
        if (!p || entries.has(p)) return;
        await keepOne(site, p, hint).catch((err: unknown) => skip(`${p} could not be read: ${messageOf(err)}`));
      },
      /** Keeps a directory and everything in it (a removal): bounded by the snapshot's file count and size. */
      async keepTree(clientPath: string) {
        if (skipped || typeof site === 'string') return;
        const p = rel(clientPath);
        await recorder.keep(p, 'directory');
        const top = entries.get(p);
        if (skipped || top?.type !== 'directory' || !top.beforeExists) return;
        try {
          for await (const w of site.fs.walk(p, {
            onLink: (l) => skip(`${p}/${l} is a symbolic link, which is not kept`),
          })) {
            if (skipped) return;
            await recorder.keep(`${p}/${w.path}`, w.type);
          }
        } catch (err) {
          skip(`${p} could not be read: ${messageOf(err)}`);
        }
      },
      wrote(clientPath: string, after: WrittenState) {
        const e = entries.get(rel(clientPath));
        if (e) e.after = after;
      },
      /** Every kept path under (and at) clientPath was removed. */
      removed(clientPath: string) {
        const p = rel(clientPath);
        for (const e of entries.values()) if (e.path === p || e.path.startsWith(`${p}/`)) e.after = { type: 'removed' };
      },
      /**
       * Stores what the change changed and answers the audit entry's part. Paths kept but not changed (a failed
       * file, a directory that was there) are left out.
       */
      async finish(): Promise<SnapshotOutcome> {
        const changed = [...entries.values()].filter((e) => e.after && !unchanged(e));
        const drop = async () => {
          if (store && typeof site !== 'string')
            await fsAt(site.target, path.posix.dirname(remoteDir!))
              .remove(id)
              .catch(() => undefined);
        };
        if (skipped || typeof site === 'string') {
          await drop();
          return { snapshotSkipped: skipped ?? 'no site' };
        }
        if (!changed.length) {
          await drop();
          return { snapshotSkipped: 'the change changed no file' };
        }
        try {
          const files: NewSnapshotFile[] = [];
          for (const e of changed) {
            const a = e.after!;
            let afterMtime: number | null = null;
            if (a.type === 'file') afterMtime = (await site.fs.stat(e.path).catch(() => null))?.mtime ?? null;
            files.push({
              seq: e.seq,
              path: e.path,
              type: e.type === 'directory' || a.type === 'directory' ? 'directory' : 'file',
              beforeExists: e.beforeExists,
              beforeSize: e.beforeSize,
              beforeSha: e.beforeSha,
              afterExists: a.type !== 'removed',
              afterSize: a.type === 'file' ? a.size : null,
              afterSha: a.type === 'file' ? a.sha256 : null,
              afterMtime,
              content: e.content && seal(e.content),
            });
          }
          const bytes = changed.reduce((n, e) => n + (e.beforeSize ?? 0), 0);
          const row = await repo.insert(
            {
              id,
              domainId,
              domainName: domain?.domainName ?? domainId,
              serverId: site.serverId,
              dir: site.dir,
              action,
              storage: store ? 'server' : 'db',
              remoteDir: store ? remoteDir : null,
              fileCount: files.length,
              bytes,
              expiresAt: new Date(now() + limits.keepMs),
            },
            files,
          );
          if (store) await boundServer(site.serverId, row.id, bytes);
          return {
            snapshot: {
              id: row.id,
              files: files.length,
              bytes,
              expiresAt: row.expiresAt.toISOString(),
              storage: row.storage,
            },
          };
        } catch (err) {
          await drop();
          return { snapshotSkipped: `the snapshot could not be stored: ${messageOf(err)}` };
        }
      },
    };
    return recorder;
  }

  /** A path the change left as it found it: a directory that was there, or the same bytes. */
  const unchanged = (e: Entry) =>
    (e.type === 'directory' && e.beforeExists && e.after?.type === 'directory') ||
    (e.beforeExists && e.after?.type === 'file' && e.after.sha256 === e.beforeSha) ||
    (!e.beforeExists && e.after?.type === 'removed');

  /** Keeps the server's snapshots within their bound: the oldest others go first. */
  async function boundServer(serverId: string, id: string, bytes: number) {
    const others = await repo.onServer(serverId, id);
    let total = bytes + others.reduce((n, s) => n + s.bytes, 0);
    for (const s of others) {
      if (total <= limits.serverBytes) break;
      await pruneOne(s, `the server's snapshots are kept within ${mb(limits.serverBytes)}`);
      total -= s.bytes;
    }
  }

  /**
   * What a path holds now; a file is hashed unless its size and time say it is as written. The time is trusted only
   * when it is older than the second the snapshot was stored (as git does with its index): a file changed again
   * within the second of the change would show the same time.
   */
  async function nowOf(fs: ContentFs, f: SnapshotFileRow, storedAt: Date): Promise<ContentFileState> {
    const st = await fs.stat(f.path);
    if (!st) return NOTHING;
    if (st.type === 'directory' || st.symlink)
      return { exists: true, type: st.symlink ? 'file' : 'directory', size: null, sha256: null, mtime: st.mtime };
    let sha: string | null = null;
    const settled = f.afterMtime !== null && f.afterMtime < Math.floor(storedAt.getTime() / 1000);
    if (f.afterSha && settled && st.size === f.afterSize && st.mtime === f.afterMtime) sha = f.afterSha;
    else if (st.size === f.afterSize || st.size === f.beforeSize) {
      const { stream } = await fs.readStream(f.path);
      const h = crypto.createHash('sha256');
      for await (const chunk of stream) h.update(chunk as Buffer);
      sha = h.digest('hex');
    }
    return { exists: true, type: 'file', size: st.size, sha256: sha, mtime: st.mtime };
  }

  const matches = (state: ContentFileState, exists: boolean, type: string, sha: string | null) =>
    !exists ? !state.exists : state.exists && state.type === type && (type === 'directory' || state.sha256 === sha);

  function itemOf(f: SnapshotFileRow, now: ContentFileState): ContentRestoreItem {
    const asWritten = matches(now, f.afterExists, f.type, f.afterSha);
    const asBefore = matches(now, f.beforeExists, f.type, f.beforeSha);
    const status = asBefore ? 'same' : asWritten ? 'restore' : 'changed';
    const does = f.type === 'directory' ? (f.beforeExists ? 'mkdir' : 'rmdir') : f.beforeExists ? 'write' : 'remove';
    const state = (exists: boolean, size: number | null, sha: string | null, mtime: number | null) =>
      exists ? { exists, type: f.type, size, sha256: sha, mtime } : NOTHING;
    return {
      path: `/${f.path}`,
      status,
      does,
      before: state(f.beforeExists, f.beforeSize, f.beforeSha, null),
      written: state(f.afterExists, f.afterSize, f.afterSha, f.afterMtime),
      now,
    };
  }

  /** The snapshot, why it cannot be restored (if so), and, when it can, each path's state now. */
  async function previewOf(id: string) {
    const s = await repo.find(id);
    if (!s) throw new NotFoundError(M.notFound);
    let reason: string | null = null;
    let site: Site | null = null;
    if (s.prunedAt)
      reason =
        s.prunedReason === 'expired'
          ? M.expired(s.expiresAt.toISOString().slice(0, 10))
          : M.pruned(s.prunedReason ?? 'pruned');
    else if (s.expiresAt.getTime() <= now()) reason = M.expired(s.expiresAt.toISOString().slice(0, 10));
    else if (!s.domainId) reason = M.domainGone;
    else if (!s.serverId) reason = M.serverGone;
    else {
      const found = await siteOf(s.domainId);
      if (typeof found === 'string') reason = found === M.domainGone ? found : M.serverMoved;
      else if (found.serverId !== s.serverId || found.dir !== s.dir) reason = M.serverMoved;
      else if (!(await found.fs.rootExists())) reason = M.dirGone;
      else site = found;
    }
    const files = site ? await repo.files(s.id) : [];
    const items: ContentRestoreItem[] = [];
    for (const f of files) items.push(itemOf(f, await nowOf(site!.fs, f, s.createdAt)));
    const count = (st: string) => items.filter((i) => i.status === st).length;
    const preview: ContentRestorePreview = {
      _id: s.id,
      domainId: s.domainId,
      domainName: s.domainName,
      action: s.action,
      createdAt: s.createdAt.toISOString(),
      expiresAt: s.expiresAt.toISOString(),
      storage: s.storage,
      files: s.fileCount,
      bytes: s.bytes,
      restorable: !reason,
      reason,
      counts: { restore: count('restore'), same: count('same'), changed: count('changed') },
      items,
    };
    return { snapshot: s, site, files, preview };
  }

  return {
    begin,
    preview: async (id: string) => (await previewOf(id)).preview,

    /**
     * Puts the snapshot's files back: the paths as the change left them, and the ticked ones changed since. Itself
     * a change: kept in a snapshot of its own and audited as `content_files_restore`.
     */
    async restore(id: string, input: ContentRestoreInput, actor: Actor): Promise<ContentRestoreResult> {
      // One restore of a domain's files at a time (in this process): a burst of the same restore puts the files
      // back once, and the others preview after it and find nothing left to put back.
      const domainId = (await repo.find(id))?.domainId;
      return domainId ? restoring.run(domainId, () => restoreNow(id, input, actor)) : restoreNow(id, input, actor);
    },
  };

  async function restoreNow(id: string, input: ContentRestoreInput, actor: Actor): Promise<ContentRestoreResult> {
    const { snapshot, site, files, preview } = await previewOf(id);
    if (!site) throw new ConflictError(preview.reason ?? M.notFound, undefined, 'not_restorable');
    const byPath = new Map(preview.items.map((i) => [i.path, i]));
    const force = new Set<string>();
    for (const p of input.force) {
      const key = `/${rel(p)}`;
      if (byPath.get(key)?.status !== 'changed')
        throw new ValidationError(M.onlyChanged(key), { force: M.onlyChanged(key) }, 'not_changed');
      force.add(key);
    }
    const todo = files.filter((f, i) => {
      const item = preview.items[i]!;
      return item.status === 'restore' || (item.status === 'changed' && force.has(item.path));
    });
    if (!todo.length) throw new ConflictError(M.nothing, undefined, 'nothing_to_restore');
    const result: ContentRestoreResult = {
      restored: [],
      same: preview.counts.same,
      left: preview.items
        .filter((i) => i.status === 'changed' && !force.has(i.path))
        .map((i) => ({ path: i.path, reason: M.changedSince })),
      failed: [],
      snapshotId: null,
      snapshotSkipped: null,
    };
    const rec = await begin(snapshot.domainId!, 'restore');
    const kept = snapshot.storage === 'server' && snapshot.remoteDir ? fsAt(site.target, snapshot.remoteDir) : null;
    // Directories and files first, parents before what they hold; removals after, deepest first.
    const puts = todo.filter((f) => f.beforeExists);
    const takes = todo.filter((f) => !f.beforeExists).reverse();
    for (const f of [...puts, ...takes]) {
      const shown = `/${f.path}`;
      try {
        if (f.type === 'directory' && f.beforeExists) {
          await rec.keep(f.path, 'directory');
          await site.fs.mkdirp(f.path);
          rec.wrote(f.path, { type: 'directory' });
        } else if (f.type === 'directory') {
          if ((await site.fs.list(f.path)).length) {
            result.left.push({ path: shown, reason: M.notEmpty });
            continue;
          }
          await rec.keep(f.path, 'directory');
          await site.fs.remove(f.path);
          rec.removed(f.path);
        } else if (f.beforeExists) {
          await rec.keep(f.path, 'file');
          const sealed = kept ? null : await repo.content(snapshot.id, f.seq);
          if (!kept && !sealed) throw new Error('the kept bytes are missing');
          const data = kept ? (await kept.readStream(`/${f.seq}`)).stream : unseal(sealed!);
          const size = await site.fs.writeAtomic(f.path, data, { mkdirs: true });
          rec.wrote(f.path, { type: 'file', size, sha256: f.beforeSha ?? '' });
        } else {
          await rec.keep(f.path, 'file');
          await site.fs.remove(f.path);
          rec.removed(f.path);
        }
        result.restored.push(shown);
      } catch (err) {
        result.failed.push({ path: shown, error: messageOf(err) });
      }
    }
    const outcome = await rec.finish();
    if ('snapshot' in outcome) result.snapshotId = outcome.snapshot.id;
    else result.snapshotSkipped = outcome.snapshotSkipped;
    await deps.audit.record(actor, {
      action: 'content_files_restore',
      entity: 'domains',
      entityId: snapshot.domainId,
      details: {
        restoredFrom: snapshot.id,
        of: snapshot.action,
        restored: result.restored.length,
        left: result.left.length,
        failed: result.failed.length,
        paths: result.restored.slice(0, 50),
        ...(result.failed.length ? { outcome: result.restored.length ? 'partial' : 'failed' } : {}),
        ...outcome,
      },
    });
    return result;
  }
}
export type ContentSnapshotsService = ReturnType<typeof createContentSnapshotsService>;
