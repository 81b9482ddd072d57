import crypto from 'node:crypto';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { ContentFileItem, ContentFilesDir } from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import { ValidationError } from '../../http/errors.ts';
import type { SshPool } from '../../files/ssh/index.ts';
import {
  PayloadTooLargeError,
  clientSegments,
  domainDirName,
  hashingStream,
  openDomainContentFs,
  type ContentFs,
} from '../../files/content/index.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { DomainsService } from '../domains/domains.service.ts';
import type { ServersService } from '../servers/servers.service.ts';
import type { ContentSnapshotsService } from '../content-snapshots/content-snapshots.service.ts';

export type ContentFilesLimits = { maxFileBytes: number; maxFiles: number; maxEditBytes: number };

/** One incoming upload part: its relative path (from filesPathes or the file name) and its bytes. */
export type UploadPart = { relativePath: string; stream: Readable };

/** A domain's site files on its server, over SFTP (decisions 020, 021). */
export function createContentFilesService(deps: {
  ssh: SshPool;
  domains: DomainsService;
  servers: ServersService;
  audit: AuditService;
  limits: ContentFilesLimits;
  /** Keeps what a save, removal or upload replaces, for Restore (decision 078); absent, nothing is kept. */
  snapshots?: Pick<ContentSnapshotsService, 'begin'>;
}) {
  const { ssh, domains, servers, audit, limits } = deps;
  /** The change's snapshot, or none when snapshots are off (the recorder calls are then no-ops). */
  const snapshotOf = async (domainId: string, kind: string) => (await deps.snapshots?.begin(domainId, kind)) ?? null;

  /** The domain's file layer, with the checks that make a domain's files reachable at all. */
  const filesOf = async (domainId: string): Promise<{ files: ContentFs; dirName: string; domainName: string }> => {
    const domain = await domains.get(domainId);
    if (!domain.serverId) {
      throw new ValidationError(
        'This domain has no server: choose one on the domain form first',
        undefined,
        'no_server',
      );
    }
    const server = await servers.get(domain.serverId);
    if (!server.domainsPath) {
      throw new ValidationError(
        `The server ${server.IPAddress} has no domains path: set it on the server form first`,
        undefined,
        'path_not_set',
      );
    }
    const target = await servers.sshTarget(domain.serverId);
    const serverId = domain.serverId;
    const files = openDomainContentFs(ssh, target, { domainsPath: server.domainsPath }, domain.domainName, {
      onHostKey: (fp) => void servers.rememberHostKey(serverId, fp).catch(() => undefined),
    });
    return { files, dirName: domainDirName(domain.domainName), domainName: domain.domainName };
  };

  /** An entry on the domain, named by it ("admin saved a content file of example.com"). */
  const record = (
    actor: Actor,
    domain: { id: string; name: string },
    action: string,
    details: Record<string, unknown>,
  ) =>
    audit.record(actor, {
      action,
      entity: 'domains',
      entityId: domain.id,
      details: { domainName: domain.name, ...details },
    });

  /** "/a/b" form of a client path, for answers and the audit trail. */
  const shown = (clientPath: string) => `/${clientSegments(clientPath).join('/')}`;

  return {
    limits,
    async dirInfo(domainId: string): Promise<ContentFilesDir> {
      const { files, dirName } = await filesOf(domainId);
      return { domainDirExists: await files.rootExists(), domainDirName: dirName, uploadLimits: limits };
    },

    async createDomainDir(domainId: string, actor: Actor): Promise<ContentFilesDir> {
      const { files, dirName, domainName } = await filesOf(domainId);
      await files.createRoot();
      await record(actor, { id: domainId, name: domainName }, 'content_files_create_domain_dir', { dir: dirName });
      return { domainDirExists: true, domainDirName: dirName, uploadLimits: limits };
    },

    async list(domainId: string, dir: string): Promise<ContentFileItem[]> {
      const { files } = await filesOf(domainId);
      return (await files.list(dir)).map((e) => ({ name: e.name, type: e.type, displayName: e.name }));
    },

    async readText(domainId: string, file: string): Promise<string> {
      const { files } = await filesOf(domainId);
      return (await files.readFile(file, limits.maxEditBytes)).toString('utf8');
    },

    async saveText(domainId: string, file: string, content: string, actor: Actor): Promise<string> {
      if (Buffer.byteLength(content) > limits.maxEditBytes) {
        throw new PayloadTooLargeError(`The file is larger than the limit of ${limits.maxEditBytes} bytes`);
      }
      const { files, domainName } = await filesOf(domainId);
      const existing = await files.stat(file);
      if (existing?.type === 'directory')
        throw new ValidationError('A directory cannot be saved as a file', { path: 'a directory' });
      const snap = await snapshotOf(domainId, 'save');
      await snap?.keep(file);
      let bytes: number;
      try {
        bytes = await files.writeAtomic(file, content, { mkdirs: false });
      } catch (err) {
        await snap?.finish();
        throw err;
      }
      snap?.wrote(file, {
        type: 'file',
        size: bytes,
        sha256: crypto.createHash('sha256').update(content).digest('hex'),
      });
      const kept = (await snap?.finish()) ?? {};
      await record(actor, { id: domainId, name: domainName }, 'content_files_save', {
        path: shown(file),
        bytes,
        ...kept,
      });
      return shown(file);
    },

    async rename(domainId: string, from: string, name: string, actor: Actor): Promise<string> {
      const { files, domainName } = await filesOf(domainId);
      const to = await files.rename(from, name);
      await record(actor, { id: domainId, name: domainName }, 'content_files_rename', { from: shown(from), to });
      return to;
    },

    async remove(domainId: string, target: string, actor: Actor): Promise<string> {
      const { files, domainName } = await filesOf(domainId);
      // No stat first: it checks the path with realpath, which refuses a link that leads out (issue 42).
      const snap = await snapshotOf(domainId, 'remove');
      await snap?.keepTree(target);
      let type: string;
      try {
        type = await files.remove(target);
      } catch (err) {
        // A tree removed part way: what went is restorable (what is still there previews as "Already matches").
        snap?.removed(target);
        const kept = (await snap?.finish()) ?? {};
        if ('snapshot' in kept)
          await record(actor, { id: domainId, name: domainName }, 'content_files_remove', {
            path: shown(target),
            outcome: 'partial',
            error: err instanceof Error ? err.message : String(err),
            ...kept,
          });
        throw err;
      }
      snap?.removed(target);
      const kept = (await snap?.finish()) ?? {};
      await record(actor, { id: domainId, name: domainName }, 'content_files_remove', {
        path: shown(target),
        type,
        ...kept,
      });
      return shown(target);
    },

    async createDir(domainId: string, dir: string, name: string, actor: Actor): Promise<string> {
      const { files, domainName } = await filesOf(domainId);
      const created = await files.mkdir(dir, name);
      await record(actor, { id: domainId, name: domainName }, 'content_files_create_dir', { path: created });
      return created;
    },

    /**
     * Writes each incoming part under dir, keeping its relative folders, one at a time straight from the request
     * into SFTP (each atomically). Answers what was written; a failure stops the upload, keeping the files written
     * before it, and the audit entry records them either way.
     */
    async upload(
      domainId: string,
      dir: string,
      parts: AsyncIterable<UploadPart>,
      actor: Actor,
    ): Promise<{ path: string; size: number }[]> {
      const { files, domainName } = await filesOf(domainId);
      const base = clientSegments(dir);
      if (!(await files.rootExists())) {
        throw new ValidationError('Create the domain directory first', undefined, 'domain_dir_missing');
      }
      const written: { path: string; size: number }[] = [];
      const snap = await snapshotOf(domainId, 'upload');
      try {
        for await (const part of parts) {
          if (written.length >= limits.maxFiles) {
            part.stream.resume();
            throw new PayloadTooLargeError(
              `At most ${limits.maxFiles} files can be uploaded at once`,
              'too_many_files',
            );
          }
          const rel = clientSegments(part.relativePath);
          if (!rel.length) {
            part.stream.resume();
            throw new ValidationError('Every uploaded file needs a name', { filesPathes: 'empty path' }, 'bad_path');
          }
          const clientPath = path.posix.join('/', ...base, ...rel);
          await snap?.keep(clientPath);
          const hashed = hashingStream();
          part.stream.once('error', (err) => hashed.stream.destroy(err));
          const size = await files
            .writeAtomic(clientPath, part.stream.pipe(hashed.stream), {
              maxBytes: limits.maxFileBytes,
              label: `"${rel.join('/')}"`,
            })
            .catch((err: unknown) => {
              // The rest of this part is drained, so the request's next parts (and its end) still arrive.
              part.stream.unpipe(hashed.stream);
              part.stream.resume();
              throw err;
            });
          snap?.wrote(clientPath, { type: 'file', size, sha256: hashed.done().sha256 });
          written.push({ path: clientPath, size });
        }
      } finally {
        const kept = (await snap?.finish()) ?? {};
        if (written.length) {
          await record(actor, { id: domainId, name: domainName }, 'content_files_upload', {
            dir: shown(dir),
            files: written.length,
            bytes: written.reduce((n, w) => n + w.size, 0),
            paths: written.slice(0, 50).map((w) => w.path),
            ...kept,
          });
        }
      }
      return written;
    },

    async download(domainId: string, file: string) {
      const { files } = await filesOf(domainId);
      return files.readStream(file);
    },
  };
}
export type ContentFilesService = ReturnType<typeof createContentFilesService>;
