import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import type { SFTPWrapper, Stats } from 'ssh2';
import type { SshPool, SshTarget } from '../../files/ssh/index.ts';
import { PermanentJobError } from '../registry.ts';

/** A domain's content directory on its server. */
export type DomainDir = { domainId: string; domainName: string; target: SshTarget; dir: string };

export type TreeEntry = { path: string; type: 'file' | 'directory'; size: number; mtime: Date };

/** Bounds on a walk, so a huge or looping tree cannot exhaust memory or run forever. */
export const WALK_MAX_ENTRIES = 1_000_000;
export const WALK_MAX_DEPTH = 64;

const p = <T>(fn: (cb: (err: Error | null | undefined, v: T) => void) => void) =>
  new Promise<T>((resolve, reject) => fn((err, v) => (err ? reject(err) : resolve(v))));

const join = (a: string, b: string) => (a ? `${a}/${b}` : b);
export const absPath = (root: string, rel: string) => (rel ? `${root.replace(/\/+$/, '')}/${rel}` : root);

/**
 * Every directory and regular file under root, parents before children, names in order. Symbolic links are
 * skipped: they could lead out of the domain directory or loop.
 */
export async function* walkTree(
  sftp: SFTPWrapper,
  root: string,
  opts: { signal?: AbortSignal; maxEntries?: number } = {},
): AsyncGenerator<TreeEntry> {
  const max = opts.maxEntries ?? WALK_MAX_ENTRIES;
  let seen = 0;
  const queue: { rel: string; depth: number }[] = [{ rel: '', depth: 0 }];
  while (queue.length) {
    opts.signal?.throwIfAborted();
    const { rel, depth } = queue.shift()!;
    const list = await p<{ filename: string; attrs: Stats }[]>((cb) => sftp.readdir(absPath(root, rel), cb));
    list.sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0));
    for (const e of list) {
      if (e.filename === '.' || e.filename === '..') continue;
      if (++seen > max) throw new Error(`The directory has more than ${max} entries`);
      const path = join(rel, e.filename);
      const mtime = new Date((e.attrs.mtime ?? 0) * 1000);
      if (e.attrs.isDirectory()) {
        yield { path, type: 'directory', size: 0, mtime };
        if (depth + 1 < WALK_MAX_DEPTH) queue.push({ rel: path, depth: depth + 1 });
      } else if (e.attrs.isFile()) {
        yield { path, type: 'file', size: e.attrs.size ?? 0, mtime };
      }
    }
  }
}

export async function dirExists(sftp: SFTPWrapper, path: string): Promise<boolean> {
  try {
    const st = await p<Stats>((cb) => sftp.stat(path, cb));
    return st.isDirectory();
  } catch {
    return false;
  }
}

/** mkdir that accepts an existing directory (a retry or a resumed copy meets its own earlier work). */
export async function ensureDir(sftp: SFTPWrapper, path: string) {
  try {
    await p<void>((cb) => sftp.mkdir(path, (err) => cb(err, undefined)));
  } catch (err) {
    if (!(await dirExists(sftp, path))) throw err;
  }
}

export type CopyProgress = { files: number; filesTotal: number; bytes: number; bytesTotal: number; current: string };
export type CopySummary = {
  files: number;
  directories: number;
  bytes: number;
  failed: { path: string; error: string }[];
};

export const COPY_FILE_ATTEMPTS = 3;
/** At most this many failures are listed by name; the count says how many more. */
export const COPY_MAX_LISTED_FAILURES = 1000;

/**
 * Copies a domain directory tree to another domain's directory, streaming each file from one SFTP session to
 * the other (memory stays flat whatever the sizes). A file that fails is retried, then reported by name, and
 * the copy goes on with the rest. Directories are created first; an existing target file is overwritten.
 */
export async function copyTree(
  ssh: SshPool,
  from: DomainDir,
  to: DomainDir,
  opts: {
    signal: AbortSignal;
    onProgress: (p: CopyProgress) => Promise<void>;
    retryDelayMs?: number;
  },
): Promise<CopySummary> {
  return ssh.sftp(from.target, (src) =>
    ssh.sftp(to.target, async (dst) => {
      if (!(await dirExists(src, from.dir)))
        throw new PermanentJobError(`The directory of ${from.domainName} does not exist on its server (${from.dir})`);
      const entries: TreeEntry[] = [];
      for await (const e of walkTree(src, from.dir, { signal: opts.signal })) entries.push(e);
      const files = entries.filter((e) => e.type === 'file');
      const dirs = entries.filter((e) => e.type === 'directory');
      const bytesTotal = files.reduce((n, f) => n + f.size, 0);
      const summary: CopySummary = { files: 0, directories: 0, bytes: 0, failed: [] };
      let failedCount = 0;
      const report = (current: string) =>
        opts.onProgress({
          files: summary.files + failedCount,
          filesTotal: files.length,
          bytes: summary.bytes,
          bytesTotal,
          current,
        });

      await ensureDir(dst, to.dir);
      for (const d of dirs) {
        opts.signal.throwIfAborted();
        await ensureDir(dst, absPath(to.dir, d.path));
        summary.directories++;
      }
      for (const f of files) {
        opts.signal.throwIfAborted();
        await report(f.path);
        let lastError = '';
        let copied = 0;
        for (let attempt = 1; attempt <= COPY_FILE_ATTEMPTS; attempt++) {
          copied = 0;
          try {
            const counter = new Transform({
              transform(chunk: Buffer, _enc, cb) {
                copied += chunk.length;
                cb(null, chunk);
              },
            });
            await pipeline(
              src.createReadStream(absPath(from.dir, f.path)),
              counter,
              dst.createWriteStream(absPath(to.dir, f.path)),
              { signal: opts.signal },
            );
            lastError = '';
            break;
          } catch (err) {
            if (opts.signal.aborted) throw opts.signal.reason;
            lastError = err instanceof Error ? err.message : String(err);
            if (attempt < COPY_FILE_ATTEMPTS)
              await new Promise((r) => setTimeout(r, (opts.retryDelayMs ?? 300) * attempt));
          }
        }
        if (lastError) {
          failedCount++;
          if (summary.failed.length < COPY_MAX_LISTED_FAILURES) summary.failed.push({ path: f.path, error: lastError });
        } else {
          summary.files++;
          summary.bytes += copied;
        }
      }
      await report('');
      return summary;
    }),
  );
}
