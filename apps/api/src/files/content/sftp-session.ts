import path from 'node:path';
import type { Attributes, FileEntry, SFTPWrapper } from 'ssh2';
import { AppError, NotFoundError, UpstreamError, ValidationError } from '../../http/errors.ts';
import { SshError, type SshPool, type SshTarget } from '../ssh/index.ts';
import { isInside, normaliseRoot, resolveInside } from './paths.ts';

/**
 * The SFTP plumbing under the content layer: one request with a deadline, the pooled channel (held or leased),
 * SSH and SFTP failures mapped to the API's errors, and the path check (lexical, then realpath on the host).
 */

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
// ssh2's numeric SFTP status codes.
const NO_SUCH_FILE = 2;
const PERMISSION_DENIED = 3;

export type ContentItemType = 'file' | 'directory';

export class PayloadTooLargeError extends AppError {
  constructor(message: string, code = 'too_large') {
    super(413, code, message);
  }
}

export const typeOf = (attrs: Attributes): ContentItemType =>
  (attrs.mode & S_IFMT) === S_IFDIR ? 'directory' : 'file';
export const isLink = (attrs: Attributes) => (attrs.mode & S_IFMT) === S_IFLNK;

type Cb<T> = (err: (Error & { code?: number | string }) | null | undefined, value?: T) => void;

export function openSftpSession(opts: {
  ssh: SshPool;
  target: SshTarget;
  root: string;
  requestTimeoutMs?: number;
  onHostKey?: (fingerprint: string) => void;
}) {
  const { ssh, target } = opts;
  const root = normaliseRoot(opts.root);
  const requestTimeoutMs = opts.requestTimeoutMs ?? 30_000;
  let hostKeyReported = target.knownHostFingerprint !== null;

  const shown = (remote: string) => {
    const rel = path.posix.relative(root, remote);
    return rel ? `/${rel}` : '/';
  };

  const mapError = (err: unknown, remote?: string): unknown => {
    if (err instanceof AppError) return err;
    // Fastify's and @fastify/multipart's client errors (body too large, files limit) keep their 4xx.
    const status = (err as { statusCode?: unknown }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) return err;
    if (err instanceof SshError) {
      return new UpstreamError('SSH', err.message, { timeout: err.code === 'timeout', code: `ssh_${err.code}` });
    }
    const e = err as Error & { code?: number | string };
    const where = remote ? ` (${shown(remote)})` : '';
    if (e.code === NO_SUCH_FILE) return new NotFoundError(`No such file or directory${where}`);
    if (e.code === PERMISSION_DENIED) {
      return new UpstreamError('SSH', `Permission denied on the server${where}`, { code: 'ssh_permission_denied' });
    }
    return new UpstreamError('SSH', `The server refused the file operation${where}: ${e.message ?? 'failure'}`, {
      code: 'ssh_sftp_failed',
    });
  };

  /** One SFTP request with a deadline, so a wedged host cannot hang the API. */
  const call = <T>(what: string, fn: (cb: Cb<T>) => void): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new UpstreamError('SSH', `The server did not answer ${what} within ${requestTimeoutMs / 1000} s`, {
              timeout: true,
            }),
          ),
        requestTimeoutMs,
      );
      fn((err, value) => {
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(value as T);
      });
    });

  const noteHostKey = (fingerprint: string) => {
    if (hostKeyReported || !fingerprint) return;
    hostKeyReported = true;
    opts.onHostKey?.(fingerprint);
  };

  /** Runs fn on one SFTP channel of the pooled connection, mapping every failure. */
  const withSftp = async <T>(fn: (sftp: SFTPWrapper) => Promise<T>): Promise<T> => {
    try {
      return await ssh.sftp(target, (sftp, session) => {
        noteHostKey(session.hostFingerprint);
        return fn(sftp);
      });
    } catch (err) {
      throw mapError(err);
    }
  };

  /** An SFTP channel held open until release() is called: for streams and walks that outlive one call. */
  const lease = () =>
    new Promise<{ sftp: SFTPWrapper; release: () => void }>((resolve, reject) => {
      let release!: () => void;
      const done = new Promise<void>((r) => (release = r));
      void ssh
        .sftp(target, async (sftp, session) => {
          noteHostKey(session.hostFingerprint);
          resolve({ sftp, release });
          await done;
        })
        .catch((err: unknown) => reject(mapError(err)));
    });

  const lstat = (sftp: SFTPWrapper, remote: string) => call<Attributes>('lstat', (cb) => sftp.lstat(remote, cb));
  const stat = (sftp: SFTPWrapper, remote: string) => call<Attributes>('stat', (cb) => sftp.stat(remote, cb));
  const exists = (sftp: SFTPWrapper, remote: string) =>
    lstat(sftp, remote).then(
      (a) => a,
      (err: { code?: number }) => {
        if (err?.code === NO_SUCH_FILE) return null;
        throw err;
      },
    );
  const realpath = (sftp: SFTPWrapper, remote: string) => call<string>('realpath', (cb) => sftp.realpath(remote, cb));

  const rootMissing = () => new NotFoundError('The domain directory does not exist yet', 'domain_dir_missing');

  /**
   * The client path as an absolute remote path inside root, after checking with realpath on the host that the
   * deepest existing part of it does not lead out through a symlink. Missing trailing parts cannot be links.
   */
  const safe = async (sftp: SFTPWrapper, clientPath: string | undefined | null): Promise<string> => {
    const lexical = resolveInside(root, clientPath);
    const rootAttrs = await exists(sftp, root);
    if (!rootAttrs) throw rootMissing();
    const realRoot = await realpath(sftp, root);
    let existing = lexical;
    while (existing !== root && !(await exists(sftp, existing))) existing = path.posix.dirname(existing);
    let real: string;
    try {
      real = await realpath(sftp, existing);
    } catch {
      throw new ValidationError(
        'The path is not allowed: a symbolic link leads nowhere',
        { path: 'broken link' },
        'bad_path',
      );
    }
    if (!isInside(realRoot, real)) {
      throw new ValidationError(
        'The path is not allowed: a symbolic link leads outside the directory',
        { path: 'outside the directory' },
        'bad_path',
      );
    }
    return lexical;
  };

  const readdir = async (sftp: SFTPWrapper, remote: string): Promise<FileEntry[]> =>
    (await call<FileEntry[]>('readdir', (cb) => sftp.readdir(remote, cb))).filter(
      (e) => e.filename !== '.' && e.filename !== '..',
    );

  return { root, shown, mapError, call, withSftp, lease, lstat, stat, exists, realpath, rootMissing, safe, readdir };
}
export type SftpSession = ReturnType<typeof openSftpSession>;
