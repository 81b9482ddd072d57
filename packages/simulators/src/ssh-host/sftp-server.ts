import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import nodePath from 'node:path';
import ssh2 from 'ssh2';
import type { Attributes, FileEntry, SFTPWrapper } from 'ssh2';
import { normaliseRemotePath, toLocalPath } from './remote-path.ts';

const { STATUS_CODE, flagsToString } = ssh2.utils.sftp;

// Keeps each NAME packet well under ssh2's 32 KiB SFTP packet limit.
const READDIR_BATCH = 100;

type OpenFile = { kind: 'file'; fh: FileHandle };
type OpenDir = { kind: 'dir'; local: string; entries: string[] | null; cursor: number };

function toAttrs(st: Stats): Attributes {
  return {
    mode: st.mode,
    uid: st.uid,
    gid: st.gid,
    size: st.size,
    atime: Math.floor(st.atimeMs / 1000),
    mtime: Math.floor(st.mtimeMs / 1000),
  };
}

function longname(name: string, st: Stats): string {
  const type = st.isDirectory() ? 'd' : st.isSymbolicLink() ? 'l' : '-';
  const bits = 'rwxrwxrwx'
    .split('')
    .map((c, i) => (st.mode & (1 << (8 - i)) ? c : '-'))
    .join('');
  const date = st.mtime.toISOString().slice(0, 16).replace('T', ' ');
  return `${type}${bits} 1 ${st.uid} ${st.gid} ${String(st.size).padStart(8)} ${date} ${name}`;
}

// OpenSSH's wording; the fs error text would leak the host's local paths.
const MESSAGES: Record<number, string> = {
  [STATUS_CODE.NO_SUCH_FILE]: 'No such file',
  [STATUS_CODE.PERMISSION_DENIED]: 'Permission denied',
  [STATUS_CODE.FAILURE]: 'Failure',
};

function statusOf(err: unknown): number {
  switch ((err as NodeJS.ErrnoException).code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return STATUS_CODE.NO_SUCH_FILE;
    case 'EACCES':
    case 'EPERM':
      return STATUS_CODE.PERMISSION_DENIED;
    default:
      return STATUS_CODE.FAILURE;
  }
}

/** realpath(3) that, as OpenSSH's sftp-server, accepts a missing last component (following a dangling link). */
async function realLocal(p: string, hops = 0): Promise<string> {
  try {
    return await fs.realpath(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || hops > 40) throw err;
    const st = await fs.lstat(p).catch(() => null);
    if (st?.isSymbolicLink()) return realLocal(nodePath.resolve(nodePath.dirname(p), await fs.readlink(p)), hops + 1);
    return nodePath.join(await fs.realpath(nodePath.dirname(p)), nodePath.basename(p));
  }
}

/** Serves rootDir as "/" on one SFTP session, answering like OpenSSH's sftp-server where the product can tell. */
export function serveSftp(sftp: SFTPWrapper, rootDir: string): void {
  const handles = new Map<number, OpenFile | OpenDir>();
  let nextHandle = 1;
  const local = (remote: string) => toLocalPath(rootDir, remote);

  const newHandle = (entry: OpenFile | OpenDir): Buffer => {
    const id = nextHandle++;
    handles.set(id, entry);
    const buf = Buffer.alloc(4);
    buf.writeUInt32BE(id);
    return buf;
  };
  const lookup = (handle: Buffer) => (handle.length === 4 ? handles.get(handle.readUInt32BE(0)) : undefined);

  // Every request answers exactly once: a thrown fs error becomes the matching SFTP status.
  const run = (reqId: number, work: () => Promise<void>) => {
    work().catch((err: unknown) => {
      const code = statusOf(err);
      sftp.status(reqId, code, MESSAGES[code]);
    });
  };

  sftp.on('OPEN', (reqId, filename, flags) => {
    run(reqId, async () => {
      const mode = flagsToString(flags);
      if (!mode) return void sftp.status(reqId, STATUS_CODE.OP_UNSUPPORTED);
      const fh = await fs.open(local(filename), mode);
      sftp.handle(reqId, newHandle({ kind: 'file', fh }));
    });
  });

  sftp.on('READ', (reqId, handle, offset, length) => {
    run(reqId, async () => {
      const h = lookup(handle);
      if (h?.kind !== 'file') return void sftp.status(reqId, STATUS_CODE.FAILURE, 'Bad handle');
      const buf = Buffer.alloc(length);
      const { bytesRead } = await h.fh.read(buf, 0, length, offset);
      if (bytesRead === 0) return void sftp.status(reqId, STATUS_CODE.EOF);
      sftp.data(reqId, buf.subarray(0, bytesRead));
    });
  });

  sftp.on('WRITE', (reqId, handle, offset, data) => {
    run(reqId, async () => {
      const h = lookup(handle);
      if (h?.kind !== 'file') return void sftp.status(reqId, STATUS_CODE.FAILURE, 'Bad handle');
      await h.fh.write(data, 0, data.length, offset);
      sftp.status(reqId, STATUS_CODE.OK);
    });
  });

  sftp.on('FSTAT', (reqId, handle) => {
    run(reqId, async () => {
      const h = lookup(handle);
      if (!h) return void sftp.status(reqId, STATUS_CODE.FAILURE, 'Bad handle');
      sftp.attrs(reqId, toAttrs(h.kind === 'file' ? await h.fh.stat() : await fs.stat(h.local)));
    });
  });

  // Attribute changes (mode, times) are accepted and ignored: the product only relies on them succeeding.
  sftp.on('FSETSTAT', (reqId) => sftp.status(reqId, STATUS_CODE.OK));
  sftp.on('SETSTAT', (reqId, path) => {
    run(reqId, async () => {
      await fs.stat(local(path));
      sftp.status(reqId, STATUS_CODE.OK);
    });
  });

  sftp.on('CLOSE', (reqId, handle) => {
    run(reqId, async () => {
      const h = lookup(handle);
      if (!h) return void sftp.status(reqId, STATUS_CODE.FAILURE, 'Bad handle');
      handles.delete(handle.readUInt32BE(0));
      if (h.kind === 'file') await h.fh.close();
      sftp.status(reqId, STATUS_CODE.OK);
    });
  });

  sftp.on('OPENDIR', (reqId, path) => {
    run(reqId, async () => {
      const dir = local(path);
      const st = await fs.stat(dir);
      if (!st.isDirectory()) return void sftp.status(reqId, STATUS_CODE.FAILURE, 'Not a directory');
      sftp.handle(reqId, newHandle({ kind: 'dir', local: dir, entries: null, cursor: 0 }));
    });
  });

  sftp.on('READDIR', (reqId, handle) => {
    run(reqId, async () => {
      const h = lookup(handle);
      if (h?.kind !== 'dir') return void sftp.status(reqId, STATUS_CODE.FAILURE, 'Bad handle');
      h.entries ??= ['.', '..', ...(await fs.readdir(h.local))];
      const batch = h.entries.slice(h.cursor, h.cursor + READDIR_BATCH);
      // After the last batch the listing ends with EOF, as clients expect.
      if (!batch.length) return void sftp.status(reqId, STATUS_CODE.EOF);
      h.cursor += batch.length;
      const names: FileEntry[] = [];
      for (const name of batch) {
        const st = await fs.lstat(`${h.local}/${name}`).catch(() => null);
        if (st) names.push({ filename: name, longname: longname(name, st), attrs: toAttrs(st) });
      }
      sftp.name(reqId, names);
    });
  });

  sftp.on('STAT', (reqId, path) => {
    run(reqId, async () => void sftp.attrs(reqId, toAttrs(await fs.stat(local(path)))));
  });
  sftp.on('LSTAT', (reqId, path) => {
    run(reqId, async () => void sftp.attrs(reqId, toAttrs(await fs.lstat(local(path)))));
  });

  sftp.on('MKDIR', (reqId, path) => {
    run(reqId, async () => {
      await fs.mkdir(local(path));
      sftp.status(reqId, STATUS_CODE.OK);
    });
  });
  sftp.on('RMDIR', (reqId, path) => {
    run(reqId, async () => {
      if (normaliseRemotePath(path) === '/') return void sftp.status(reqId, STATUS_CODE.PERMISSION_DENIED);
      await fs.rmdir(local(path));
      sftp.status(reqId, STATUS_CODE.OK);
    });
  });
  sftp.on('REMOVE', (reqId, path) => {
    run(reqId, async () => {
      await fs.unlink(local(path));
      sftp.status(reqId, STATUS_CODE.OK);
    });
  });

  // Plain SFTP v3 RENAME refuses to overwrite, as OpenSSH does; callers that replace files must remove first.
  sftp.on('RENAME', (reqId, oldPath, newPath) => {
    run(reqId, async () => {
      const from = local(oldPath);
      const to = local(newPath);
      await fs.lstat(from);
      const taken = await fs.lstat(to).then(
        () => true,
        () => false,
      );
      if (taken) return void sftp.status(reqId, STATUS_CODE.FAILURE, 'File exists');
      await fs.rename(from, to);
      sftp.status(reqId, STATUS_CODE.OK);
    });
  });

  // Like OpenSSH: links are followed and a missing last component is allowed. A path that resolves outside the
  // served root is answered with its local absolute path, which is what a real host would show for it.
  sftp.on('REALPATH', (reqId, path) => {
    run(reqId, async () => {
      const realRoot = await fs.realpath(rootDir);
      const real = await realLocal(local(path));
      const rel = nodePath.relative(realRoot, real);
      const resolved =
        rel === ''
          ? '/'
          : rel.startsWith('..') || nodePath.isAbsolute(rel)
            ? real
            : `/${rel.split(nodePath.sep).join('/')}`;
      sftp.name(reqId, [{ filename: resolved, longname: resolved, attrs: {} as Attributes }]);
    });
  });

  sftp.on('close', () => {
    for (const h of handles.values()) if (h.kind === 'file') void h.fh.close().catch(() => undefined);
    handles.clear();
  });
}
