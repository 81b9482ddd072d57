import crypto from 'node:crypto';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { SFTPWrapper } from 'ssh2';
import { AppError, ConflictError } from '../../http/errors.ts';
import { PayloadTooLargeError, isLink, typeOf, type SftpSession } from './sftp-session.ts';

/**
 * Atomic writes over SFTP (decision 021): to a hidden temp file beside the target, then renamed over it; parent
 * directories made on the way.
 */
export function atomicWrites({ call, exists, stat, mapError, shown }: SftpSession) {
  const mkdirpRemote = async (sftp: SFTPWrapper, remote: string) => {
    const missing: string[] = [];
    let p = remote;
    while (p !== '/' && !(await exists(sftp, p))) {
      missing.unshift(p);
      p = path.posix.dirname(p);
    }
    for (const dir of missing) {
      await call<void>('mkdir', (cb) => sftp.mkdir(dir, cb)).catch(async (err) => {
        // Another upload may have made it meanwhile.
        const a = await exists(sftp, dir);
        if (!a || typeOf(a) !== 'directory') throw err;
      });
    }
    const a = await stat(sftp, remote);
    if (typeOf(a) !== 'directory') throw new ConflictError(`${shown(remote)} exists and is not a directory`);
  };

  /** A temp name next to the target, hidden and unique, short enough for 255-byte names. */
  const tempNameFor = (remote: string) => {
    const base = Buffer.from(path.posix.basename(remote))
      .subarray(0, 180)
      .toString('utf8')
      .replace(/\uFFFD+$/, '');
    return path.posix.join(path.posix.dirname(remote), `.${base}.${crypto.randomBytes(6).toString('hex')}.fdtmp`);
  };

  /**
   * Moves tmp over remote. OpenSSH's posix-rename replaces atomically; a host without it gets the old file moved
   * aside first and put back if the second rename fails, so the target is never half written (decision 021).
   */
  const replace = async (sftp: SFTPWrapper, tmp: string, remote: string, host: { noPosixRename?: boolean } = {}) => {
    if (!host.noPosixRename) {
      try {
        await call<void>('posix-rename', (cb) => sftp.ext_openssh_rename(tmp, remote, cb));
        return;
      } catch (err) {
        if (!/not support/i.test((err as Error).message ?? '')) throw err;
        // A writer remembers it, so its next files skip the round trip.
        host.noPosixRename = true;
      }
    }
    const old = await exists(sftp, remote);
    if (!old) return call<void>('rename', (cb) => sftp.rename(tmp, remote, cb));
    if (typeOf(old) === 'directory' && !isLink(old)) throw new ConflictError(`${shown(remote)} is a directory`);
    const aside = tempNameFor(remote);
    await call<void>('rename', (cb) => sftp.rename(remote, aside, cb));
    try {
      await call<void>('rename', (cb) => sftp.rename(tmp, remote, cb));
    } catch (err) {
      await call<void>('rename', (cb) => sftp.rename(aside, remote, cb)).catch(() => undefined);
      throw err;
    }
    await call<void>('remove', (cb) => sftp.unlink(aside, cb)).catch(() => undefined);
  };

  /** Counts bytes through a stream and fails it with 413 past the limit. */
  const limiter = (maxBytes: number, label: string) => {
    let seen = 0;
    return new Transform({
      transform(chunk: Buffer, _enc, cb) {
        seen += chunk.length;
        if (seen > maxBytes)
          return cb(new PayloadTooLargeError(`${label} is larger than the limit of ${maxBytes} bytes`));
        cb(null, chunk);
      },
    });
  };

  const writeAtomicOn = async (
    sftp: SFTPWrapper,
    remote: string,
    data: string | Buffer | Readable,
    maxBytes: number,
    label: string,
    host?: { noPosixRename?: boolean },
  ): Promise<number> => {
    const existing = await exists(sftp, remote);
    if (existing && typeOf(existing) === 'directory' && !isLink(existing)) {
      throw new ConflictError(`${shown(remote)} is a directory`);
    }
    const tmp = tempNameFor(remote);
    const source = typeof data === 'string' || Buffer.isBuffer(data) ? Readable.from([Buffer.from(data)]) : data;
    let written = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        written += chunk.length;
        cb(null, chunk);
      },
    });
    const ws = sftp.createWriteStream(tmp, { flags: 'w', mode: existing ? existing.mode & 0o777 : 0o644 });
    const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
    // An error of the source (a client that went away mid-upload) is the client's, not the server's.
    let sourceError: unknown = null;
    source.once('error', (e) => (sourceError ??= e));
    try {
      await pipeline(source, limiter(maxBytes, label), counter, ws);
      await closed;
      await replace(sftp, tmp, remote, host);
      return written;
    } catch (err) {
      if (!source.destroyed) source.destroy();
      ws.destroy();
      // The temp file's OPEN may still be in flight: remove it only once the stream has closed (bounded wait).
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
      await call<void>('remove', (cb) => sftp.unlink(tmp, cb)).catch(() => undefined);
      if (sourceError && err === sourceError && !(err instanceof AppError) && mapError(err) !== err) {
        throw new AppError(400, 'upload_incomplete', `${label} was not received completely; nothing was written`);
      }
      throw err;
    }
  };

  return { mkdirpRemote, limiter, writeAtomicOn };
}
