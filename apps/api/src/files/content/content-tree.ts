import crypto from 'node:crypto';
import { Transform } from 'node:stream';
import { ConflictError } from '../../http/errors.ts';
import type { ContentFs, WalkEntry } from './content-fs.ts';

export type CopyProgress = { files: number; filesTotal: number; bytes: number; bytesTotal: number; current: string };
export type SkippedLinks = { count: number; paths: string[]; note: string };
export type CopySummary = {
  files: number;
  directories: number;
  bytes: number;
  /** The files that failed, named up to COPY_MAX_LISTED_FAILURES; `failedCount` counts them all. */
  failed: { path: string; error: string }[];
  failedCount: number;
  /** Symbolic links left out (they may lead outside the directory), named up to SKIPPED_LINKS_LISTED. */
  skippedLinks?: SkippedLinks;
};

/** What a change left at a path: a file (its size and SHA-256), a directory, or nothing (removed). */
export type WrittenState = { type: 'file'; size: number; sha256: string } | { type: 'directory' } | { type: 'removed' };
/** Told of each path before a change touches it and after it did (content snapshots, decision 078). */
export type ChangeRecorder = {
  keep(path: string, type: 'file' | 'directory'): Promise<void>;
  wrote(path: string, after: WrittenState): void;
};

/** A pass-through that counts and hashes (SHA-256) what flows through it: what a change wrote, for its snapshot. */
export function hashingStream() {
  const hash = crypto.createHash('sha256');
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      hash.update(chunk);
      cb(null, chunk);
    },
  });
  return { stream, done: () => ({ bytes, sha256: hash.digest('hex') }) };
}

export const COPY_FILE_ATTEMPTS = 3;
/** At most this many failures are listed by name; the counts say how many files made it. */
export const COPY_MAX_LISTED_FAILURES = 1000;
export const SKIPPED_LINKS_LISTED = 50;

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Counts the links a walk leaves out (pass `onLink` to `ContentFs.walk`) and words what a job's result says of
 * them (issue 26: a note, never a failure).
 */
export function linkTally() {
  const paths: string[] = [];
  let count = 0;
  return {
    onLink(p: string) {
      if (++count <= SKIPPED_LINKS_LISTED) paths.push(p);
    },
    /** Undefined when no link was met. */
    note(): SkippedLinks | undefined {
      if (!count) return undefined;
      return {
        count,
        paths: paths.slice(0, SKIPPED_LINKS_LISTED),
        note: `${count} symbolic link${count === 1 ? ' was' : 's were'} skipped: links are never followed (they may lead outside the directory)`,
      };
    },
  };
}

/**
 * Copies a directory tree to another content directory (the caller checks that the source exists), streaming each
 * file from one SFTP session to the other (memory stays flat whatever the sizes) and writing it atomically. A file
 * that fails is retried, then reported by name, and the copy goes on with the rest. Directories are created first;
 * an existing target file is replaced; links are left out and counted.
 */
export async function copyTree(
  from: ContentFs,
  to: ContentFs,
  opts: {
    signal: AbortSignal;
    onProgress: (p: CopyProgress) => Promise<void>;
    retryDelayMs?: number;
    /** Keeps what each path held before the copy changes it (a snapshot, for Restore). */
    recorder?: ChangeRecorder;
  },
): Promise<CopySummary> {
  const entries: WalkEntry[] = [];
  const links = linkTally();
  for await (const e of from.walk('', { signal: opts.signal, onLink: links.onLink })) entries.push(e);
  const files = entries.filter((e) => e.type === 'file');
  const dirs = entries.filter((e) => e.type === 'directory');
  const bytesTotal = files.reduce((n, f) => n + f.size, 0);
  const summary: CopySummary = { files: 0, directories: 0, bytes: 0, failed: [], failedCount: 0 };
  const report = (current: string) =>
    opts.onProgress({
      files: summary.files + summary.failedCount,
      filesTotal: files.length,
      bytes: summary.bytes,
      bytesTotal,
      current,
    });

  if (!(await to.rootExists())) {
    await to.createRoot().catch((err: unknown) => {
      // Created meanwhile (a retry, or another job): that is what we wanted.
      if (!(err instanceof ConflictError)) throw err;
    });
  }
  for (const d of dirs) {
    opts.signal.throwIfAborted();
    await opts.recorder?.keep(d.path, 'directory');
    await to.mkdirp(d.path);
    opts.recorder?.wrote(d.path, { type: 'directory' });
    summary.directories++;
  }
  for (const f of files) {
    opts.signal.throwIfAborted();
    await report(f.path);
    await opts.recorder?.keep(f.path, 'file');
    let lastError = '';
    let counter = hashingStream();
    for (let attempt = 1; attempt <= COPY_FILE_ATTEMPTS; attempt++) {
      counter = hashingStream();
      try {
        const { stream } = await from.readStream(f.path);
        const onAbort = () => {
          stream.destroy(opts.signal.reason as Error);
          counter.stream.destroy(opts.signal.reason as Error);
        };
        opts.signal.addEventListener('abort', onAbort, { once: true });
        stream.once('error', (err) => counter.stream.destroy(err));
        try {
          await to.writeAtomic(f.path, stream.pipe(counter.stream), { mkdirs: true });
        } finally {
          opts.signal.removeEventListener('abort', onAbort);
          stream.destroy();
        }
        lastError = '';
        break;
      } catch (err) {
        if (opts.signal.aborted) throw opts.signal.reason;
        lastError = messageOf(err);
        if (attempt < COPY_FILE_ATTEMPTS) await new Promise((r) => setTimeout(r, (opts.retryDelayMs ?? 300) * attempt));
      }
    }
    if (lastError) {
      summary.failedCount++;
      if (summary.failed.length < COPY_MAX_LISTED_FAILURES) summary.failed.push({ path: f.path, error: lastError });
    } else {
      summary.files++;
      const { bytes, sha256 } = counter.done();
      summary.bytes += bytes;
      opts.recorder?.wrote(f.path, { type: 'file', size: bytes, sha256 });
    }
  }
  await report('');
  const skipped = links.note();
  if (skipped) summary.skippedLinks = skipped;
  return summary;
}
