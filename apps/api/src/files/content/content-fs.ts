import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FileEntry, SFTPWrapper } from 'ssh2';
import { ConflictError, NotFoundError, UpstreamError, ValidationError } from '../../http/errors.ts';
import type { SshPool, SshTarget } from '../ssh/index.ts';
import { atomicWrites } from './atomic-write.ts';
import { checkName, clientSegments, isInside, resolveInside } from './paths.ts';
import { PayloadTooLargeError, isLink, openSftpSession, typeOf, type ContentItemType } from './sftp-session.ts';

export { PayloadTooLargeError, type ContentItemType };

export type ContentEntry = { name: string; type: ContentItemType; size: number; mtime: number; symlink: boolean };
export type ContentStat = { type: ContentItemType; size: number; mtime: number; symlink: boolean };
export type WalkEntry = ContentStat & { /** Relative to the walked directory, "/"-separated. */ path: string };
export type WalkOptions = {
  signal?: AbortSignal;
  /** When given, symbolic links are left out of the walk and told here (they are never followed either way). */
  onLink?: (path: string) => void;
};

export type ContentFsOptions = {
  ssh: SshPool;
  target: SshTarget;
  /** Absolute remote directory every client path stays inside (a domain's directory). */
  root: string;
  /** Limit for one SFTP request (not a whole transfer). Default 30 s. */
  requestTimeoutMs?: number;
  /** Most entries one walk or recursive remove visits before giving up with 413. Default 100 000. */
  maxWalkEntries?: number;
  /** Deepest directory level a walk or recursive remove descends to. Default 64. */
  maxDepth?: number;
  /** Longest one walk may take before it gives up (504 naming SSH). Default 15 minutes. */
  maxWalkMs?: number;
  /** Called once with the host key seen when the target had none stored (trust on first use, decision 008). */
  onHostKey?: (fingerprint: string) => void;
};

/**
 * A domain's directory over SFTP, through the pooled SSH connection (decisions 008, 020, 021). Every method takes
 * a client path relative to the root ("", "/", "css/site.css"); it is resolved once, lexically (no "..", NUL,
 * backslash, absolute path) and then with realpath on the host, so a symlink that leads out is refused with 400.
 * Provider failures become UpstreamError naming SSH; a missing path is a 404, an existing target a 409.
 */
export function openContentFs(opts: ContentFsOptions) {
  const maxWalkEntries = opts.maxWalkEntries ?? 100_000;
  const maxDepth = opts.maxDepth ?? 64;
  const maxWalkMs = opts.maxWalkMs ?? 15 * 60_000;
  const session = openSftpSession(opts);
  const { root, shown, mapError, call, withSftp, lease, lstat, stat, exists, realpath, rootMissing, safe, readdir } =
    session;
  const { mkdirpRemote, limiter, writeAtomicOn } = atomicWrites(session);

  const toEntry = async (sftp: SFTPWrapper, dir: string, e: FileEntry): Promise<ContentEntry> => {
    let attrs = e.attrs;
    const symlink = isLink(attrs);
    // A link is shown as what it points to; a broken one as a file.
    if (symlink) attrs = await stat(sftp, path.posix.join(dir, e.filename)).catch(() => e.attrs);
    return {
      name: e.filename,
      type: symlink && isLink(attrs) ? 'file' : typeOf(attrs),
      size: attrs.size ?? 0,
      mtime: attrs.mtime ?? 0,
      symlink,
    };
  };

  const byTypeThenName = (a: { type: ContentItemType; name: string }, b: { type: ContentItemType; name: string }) =>
    a.type === b.type ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.type === 'directory' ? -1 : 1;

  const removeTree = async (sftp: SFTPWrapper, remote: string, budget: { left: number }, depth: number) => {
    if (--budget.left < 0) throw new PayloadTooLargeError(`The directory holds more than ${maxWalkEntries} entries`);
    const attrs = await lstat(sftp, remote);
    if (typeOf(attrs) === 'directory' && !isLink(attrs)) {
      if (depth > maxDepth) throw new PayloadTooLargeError(`The directory is nested deeper than ${maxDepth} levels`);
      for (const e of await readdir(sftp, remote)) {
        await removeTree(sftp, path.posix.join(remote, e.filename), budget, depth + 1);
      }
      await call<void>('rmdir', (cb) => sftp.rmdir(remote, cb));
    } else {
      await call<void>('remove', (cb) => sftp.unlink(remote, cb));
    }
  };

  return {
    root,
    /** The remote path a client path resolves to, checked (symlinks included). */
    resolve: (clientPath: string) => withSftp((sftp) => safe(sftp, clientPath)),

    /** Whether the root exists as a directory. */
    rootExists: () =>
      withSftp(async (sftp) => {
        const a = await exists(sftp, root);
        return !!a && typeOf(await stat(sftp, root).catch(() => a)) === 'directory';
      }),

    /** Creates the root (and missing parents); 409 when it exists already. */
    createRoot: () =>
      withSftp(async (sftp) => {
        if (await exists(sftp, root))
          throw new ConflictError('The domain directory exists already', undefined, 'domain_dir_exists');
        await mkdirpRemote(sftp, root);
      }),

    stat: (clientPath: string) =>
      withSftp(async (sftp): Promise<ContentStat | null> => {
        const remote = await safe(sftp, clientPath);
        const l = await exists(sftp, remote);
        if (!l) return null;
        const a = isLink(l) ? await stat(sftp, remote).catch(() => l) : l;
        return { type: isLink(a) ? 'file' : typeOf(a), size: a.size ?? 0, mtime: a.mtime ?? 0, symlink: isLink(l) };
      }),

    /** A directory's entries: directories first, then by name (code point order). */
    list: (clientPath: string) =>
      withSftp(async (sftp) => {
        const remote = await safe(sftp, clientPath);
        const a = await stat(sftp, remote).catch((err) => {
          throw mapError(err, remote);
        });
        if (typeOf(a) !== 'directory')
          throw new ValidationError(
            `${shown(remote)} is not a directory`,
            { path: 'not a directory' },
            'not_a_directory',
          );
        const entries = await readdir(sftp, remote);
        if (entries.length > maxWalkEntries)
          throw new PayloadTooLargeError(`The directory holds more than ${maxWalkEntries} entries`);
        const items: ContentEntry[] = [];
        for (const e of entries) items.push(await toEntry(sftp, remote, e));
        return items.sort(byTypeThenName);
      }),

    /** A whole file in memory, for the editor; 413 past maxBytes. */
    readFile: (clientPath: string, maxBytes: number) =>
      withSftp(async (sftp) => {
        const remote = await safe(sftp, clientPath);
        const a = await stat(sftp, remote).catch((err) => {
          throw mapError(err, remote);
        });
        if (typeOf(a) === 'directory')
          throw new ValidationError(`${shown(remote)} is a directory`, { path: 'a directory' }, 'is_a_directory');
        if ((a.size ?? 0) > maxBytes)
          throw new PayloadTooLargeError(`The file is larger than the limit of ${maxBytes} bytes`);
        const chunks: Buffer[] = [];
        await pipeline(
          sftp.createReadStream(remote),
          limiter(maxBytes, 'The file'),
          async (src: AsyncIterable<Buffer>) => {
            for await (const c of src) chunks.push(c);
          },
        );
        return Buffer.concat(chunks);
      }).catch((err: unknown) => {
        throw mapError(err);
      }),

    /**
     * A stream of the file's bytes and its size. The SFTP channel stays open until the stream ends or is
     * destroyed, so memory stays flat whatever the size.
     */
    async readStream(clientPath: string): Promise<{ stream: Readable; size: number; name: string }> {
      const { sftp, release } = await lease();
      try {
        const remote = await safe(sftp, clientPath);
        const a = await stat(sftp, remote);
        if (typeOf(a) === 'directory')
          throw new ValidationError(`${shown(remote)} is a directory`, { path: 'a directory' }, 'is_a_directory');
        const stream = sftp.createReadStream(remote);
        stream.once('close', release);
        stream.once('error', release);
        return { stream, size: a.size ?? 0, name: path.posix.basename(remote) };
      } catch (err) {
        release();
        throw mapError(err, resolveInside(root, clientPath));
      }
    },

    /**
     * Writes a file atomically: to a temp file in the same directory, then renamed over the target (decision 021).
     * Missing parent directories are created. 413 past maxBytes, and the temp file is removed on any failure.
     * Answers the bytes written.
     */
    writeAtomic: (
      clientPath: string,
      data: string | Buffer | Readable,
      o: { maxBytes?: number; label?: string; mkdirs?: boolean } = {},
    ) =>
      withSftp(async (sftp) => {
        const remote = await safe(sftp, clientPath);
        if (remote === root)
          throw new ValidationError('Name a file to write', { path: 'a file path is needed' }, 'bad_path');
        if (o.mkdirs !== false) await mkdirpRemote(sftp, path.posix.dirname(remote));
        return writeAtomicOn(sftp, remote, data, o.maxBytes ?? Number.MAX_SAFE_INTEGER, o.label ?? 'The file');
      }).catch((err: unknown) => {
        if (typeof data === 'object' && !Buffer.isBuffer(data) && !data.destroyed) data.resume();
        throw mapError(err);
      }),

    /**
     * A writer for many files at once (the parser): one SFTP channel for all its writes, and each directory made
     * and checked with realpath (inside the root, no symlink out) once, not per file. Each file is written
     * atomically as writeAtomic does; the rename replaces a link at the target rather than writing through it.
     * close() releases the channel.
     */
    async openWriter() {
      const { sftp, release } = await lease();
      let realRoot: string;
      try {
        if (!(await exists(sftp, root))) throw rootMissing();
        realRoot = await realpath(sftp, root);
      } catch (err) {
        release();
        throw mapError(err);
      }
      const checked = new Map<string, Promise<void>>();
      const hostTraits: { noPosixRename?: boolean } = {};
      const ensureDir = (dir: string): Promise<void> => {
        if (dir === root) return Promise.resolve();
        let p = checked.get(dir);
        if (!p) {
          p = (async () => {
            await ensureDir(path.posix.dirname(dir));
            const a = await exists(sftp, dir);
            if (!a) {
              await call<void>('mkdir', (cb) => sftp.mkdir(dir, cb)).catch(async (err) => {
                if (!(await exists(sftp, dir))) throw err;
              });
            }
            const real = await realpath(sftp, dir);
            if (!isInside(realRoot, real))
              throw new ValidationError(
                'The path is not allowed: a symbolic link leads outside the directory',
                { path: 'outside the directory' },
                'bad_path',
              );
            const st = await stat(sftp, dir);
            if (typeOf(st) !== 'directory') throw new ConflictError(`${shown(dir)} exists and is not a directory`);
          })();
          checked.set(dir, p);
          p.catch(() => checked.delete(dir));
        }
        return p;
      };
      let closed = false;
      return {
        async write(clientPath: string, data: string | Buffer, o: { maxBytes?: number; label?: string } = {}) {
          if (closed) throw new Error('The writer is closed');
          try {
            const remote = resolveInside(root, clientPath);
            if (remote === root)
              throw new ValidationError('Name a file to write', { path: 'a file path is needed' }, 'bad_path');
            await ensureDir(path.posix.dirname(remote));
            return await writeAtomicOn(
              sftp,
              remote,
              data,
              o.maxBytes ?? Number.MAX_SAFE_INTEGER,
              o.label ?? 'The file',
              hostTraits,
            );
          } catch (err) {
            throw mapError(err);
          }
        },
        close() {
          if (closed) return;
          closed = true;
          release();
        },
      };
    },

    /** Creates a directory and its missing parents; fine when it exists. */
    mkdirp: (clientPath: string) =>
      withSftp(async (sftp) => {
        await mkdirpRemote(sftp, await safe(sftp, clientPath));
      }),

    /** Creates one new directory `name` inside `dir`; 409 when the name is taken. Answers its client path. */
    mkdir: (dir: string, name: string) =>
      withSftp(async (sftp) => {
        const n = checkName(name);
        const parent = await safe(sftp, dir);
        const remote = await safe(sftp, path.posix.join(shown(parent), n));
        const pa = await stat(sftp, parent).catch((err) => {
          throw mapError(err, parent);
        });
        if (typeOf(pa) !== 'directory')
          throw new ValidationError(
            `${shown(parent)} is not a directory`,
            { path: 'not a directory' },
            'not_a_directory',
          );
        if (await exists(sftp, remote))
          throw new ConflictError(`${shown(remote)} exists already`, { name: 'This name is taken' });
        await call<void>('mkdir', (cb) => sftp.mkdir(remote, cb)).catch((err) => {
          throw mapError(err, remote);
        });
        return shown(remote);
      }),

    /**
     * Removes a file, a link or a whole directory tree (bounded). The root itself cannot be removed. Answers what
     * it removed, read without following a link (a caller that checked the path first would refuse a link out).
     */
    remove: (clientPath: string) =>
      withSftp(async (sftp): Promise<'file' | 'directory' | 'link'> => {
        // A link is removed itself, never followed (issue 26): only its directory must lie inside the root, so a
        // link that leads out can be removed too.
        const lexical = resolveInside(root, clientPath);
        if (lexical !== root) {
          const own = await exists(sftp, lexical);
          if (own && isLink(own)) {
            await safe(sftp, shown(path.posix.dirname(lexical)));
            await call<void>('remove', (cb) => sftp.unlink(lexical, cb)).catch((err) => {
              throw mapError(err, lexical);
            });
            return 'link';
          }
        }
        const remote = await safe(sftp, clientPath);
        if (remote === root)
          throw new ValidationError('The domain directory itself cannot be removed', { path: 'the root' }, 'bad_path');
        const own = await exists(sftp, remote);
        if (!own) throw new NotFoundError(`No such file or directory (${shown(remote)})`);
        await removeTree(sftp, remote, { left: maxWalkEntries }, 0).catch((err) => {
          throw mapError(err, remote);
        });
        return typeOf(own) === 'directory' ? 'directory' : 'file';
      }),

    /** Renames an entry within its directory to a new name; 409 when the name is taken. Answers the new path. */
    rename: (clientPath: string, newName: string) =>
      withSftp(async (sftp) => {
        const n = checkName(newName);
        const from = await safe(sftp, clientPath);
        if (from === root)
          throw new ValidationError('The domain directory itself cannot be renamed', { path: 'the root' }, 'bad_path');
        const to = await safe(sftp, path.posix.join(shown(path.posix.dirname(from)), n));
        if (!(await exists(sftp, from))) throw new NotFoundError(`No such file or directory (${shown(from)})`);
        if (to === from) return shown(to);
        if (await exists(sftp, to))
          throw new ConflictError(`${shown(to)} exists already`, { name: 'This name is taken' });
        await call<void>('rename', (cb) => sftp.rename(from, to, cb)).catch((err) => {
          throw mapError(err, from);
        });
        return shown(to);
      }),

    /**
     * The one tree walker (copy, sitemap, parsing): depth first (a directory's entries, then its subdirectories),
     * never following links, yielding files and directories with paths relative to the walked directory. Bounded
     * by maxWalkEntries and maxDepth (413 past them) and maxWalkMs (504); stops when `o.signal` aborts.
     */
    async *walk(clientPath = '', o: WalkOptions = {}): AsyncGenerator<WalkEntry> {
      const { sftp, release } = await lease();
      try {
        const base = await safe(sftp, clientPath).catch((err: unknown) => {
          throw mapError(err);
        });
        const deadline = Date.now() + maxWalkMs;
        let count = 0;
        const stack: { remote: string; rel: string; depth: number }[] = [{ remote: base, rel: '', depth: 0 }];
        while (stack.length) {
          const { remote, rel, depth } = stack.pop()!;
          let entries: FileEntry[];
          try {
            entries = await readdir(sftp, remote);
          } catch (err) {
            throw mapError(err, remote);
          }
          entries.sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0));
          const subdirs: { remote: string; rel: string; depth: number }[] = [];
          for (const e of entries) {
            if (++count > maxWalkEntries)
              throw new PayloadTooLargeError(`The directory holds more than ${maxWalkEntries} entries`);
            const childRel = rel ? `${rel}/${e.filename}` : e.filename;
            const link = isLink(e.attrs);
            const type = link ? 'file' : typeOf(e.attrs);
            o.signal?.throwIfAborted();
            if (Date.now() > deadline) {
              throw new UpstreamError(
                'SSH',
                `The server did not finish listing the directory within ${maxWalkMs / 1000} s`,
                {
                  timeout: true,
                },
              );
            }
            if (link && o.onLink) o.onLink(childRel);
            else yield { path: childRel, type, size: e.attrs.size ?? 0, mtime: e.attrs.mtime ?? 0, symlink: link };
            if (type === 'directory') {
              if (depth + 1 > maxDepth)
                throw new PayloadTooLargeError(`The directory is nested deeper than ${maxDepth} levels`);
              subdirs.push({ remote: path.posix.join(remote, e.filename), rel: childRel, depth: depth + 1 });
            }
          }
          stack.push(...subdirs.reverse());
        }
      } finally {
        release();
      }
    },
  };
}
export type ContentFs = ReturnType<typeof openContentFs>;

/** The client path's segments, for callers that build paths (e.g. an upload's folder structure). */
export { clientSegments };
