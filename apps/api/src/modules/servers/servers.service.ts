import type { RsaKeyInfo, Server, ServerInput, ServerListQuery, TestConnectionResult } from '@fleetdesk/contract';
import type { Database } from '../../db/client.ts';
import type { Actor } from '../../http/context.ts';
import { AppError, NotFoundError, UpstreamError, ValidationError } from '../../http/errors.ts';
import { assertCredentialDestinations } from '../../lib/credential-destinations.ts';
import { createCrudService } from '../../lib/crud-service.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { createRevealer, sealInput } from '../../lib/secrets.ts';
import type { UsageRegistry } from '../../lib/usage.ts';
import {
  SshError,
  assertSshProbePort,
  generateKeyPairLimited,
  parsePrivateKey,
  testConnection,
  type SshPool,
  type SshTarget,
} from '../../files/ssh/index.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { ServerRow, ServerWrite, ServersRepository } from './servers.repository.ts';

export const CONNECTION_OK = 'Connection test successfull';

export function createServersService(deps: {
  database: Database;
  audit: AuditService;
  usage: UsageRegistry;
  secrets: SecretBox;
  repo: ServersRepository;
  ssh: SshPool;
}) {
  const { database, audit, usage, secrets, repo, ssh } = deps;

  const toWrite = (input: Partial<ServerInput>): ServerWrite => {
    const w: ServerWrite = {};
    const set = <K extends keyof ServerWrite>(k: K, v: ServerWrite[K] | undefined) => {
      if (v !== undefined) w[k] = v;
    };
    set('ipAddress', input.IPAddress);
    set('email', input.email);
    set('domainsLimitQty', input.domainsLimitQty);
    // null or empty means "the default", as the form's placeholders say.
    set('username', input.username === null ? 'root' : input.username);
    set('sshPort', input.sshPort === null ? 22 : input.sshPort);
    set('domainsPath', input.domainsPath);
    set('ispmanagerUri', input.ispmanagerUri);
    set('ispmanagerUsername', input.ispmanagerUsername);
    set('ispmanagerPasswordEnc', sealInput(secrets, input.ispmanagerPassword));
    set('ispmanagerAcceptSelfSigned', input.ispmanagerAcceptSelfSigned);
    set('directAdminUri', input.directAdminUri);
    set('directAdminUsername', input.directAdminUsername);
    set('directAdminPasswordEnc', sealInput(secrets, input.directAdminPassword));
    return w;
  };

  const snapshot = (r: ServerRow) => ({
    IPAddress: r.ipAddress,
    email: r.email,
    domainsLimitQty: r.domainsLimitQty,
    username: r.username,
    sshPort: r.sshPort,
    domainsPath: r.domainsPath,
    ispmanagerUri: r.ispmanagerUri,
    ispmanagerUsername: r.ispmanagerUsername,
    ispmanagerPassword: r.ispmanagerPasswordEnc,
    ispmanagerAcceptSelfSigned: r.ispmanagerAcceptSelfSigned,
    directAdminUri: r.directAdminUri,
    directAdminUsername: r.directAdminUsername,
    directAdminPassword: r.directAdminPasswordEnc,
    rsaKey: r.rsaKeyEnc,
    rsaKeyFingerprint: r.rsaKeyFingerprint,
    hostKeyFingerprint: r.hostKeyFingerprint,
  });

  const crud = createCrudService<Server, ServerInput, ServerListQuery, ServerWrite & { ipAddress: string }>({
    database,
    audit,
    usage,
    repo,
    entity: 'servers',
    label: 'server',
    toWrite,
    // A panel's URI is where its stored login goes (decision 058).
    validate: async (input, current, _tx, actor) => {
      if (!current) return;
      assertCredentialDestinations(actor, [
        {
          field: 'directAdminUri',
          label: 'Direct Admin URI',
          credentialField: 'directAdminPassword',
          credentialLabel: 'Direct Admin password',
          next: input.directAdminUri,
          current: current.directAdminUri,
          credentialGiven: input.directAdminPassword !== undefined,
          credentialStored: current.directAdminPassword !== null,
        },
        {
          field: 'ispmanagerUri',
          label: 'ISP Manager URI',
          credentialField: 'ispmanagerPassword',
          credentialLabel: 'ISP Manager password',
          next: input.ispmanagerUri,
          current: current.ispmanagerUri,
          credentialGiven: input.ispmanagerPassword !== undefined,
          credentialStored: current.ispmanagerPassword !== null,
        },
      ]);
    },
    snapshot: async (id, ex) => {
      const r = await repo.findRow(id, ex);
      return r && snapshot(r);
    },
  });

  const mustRow = async (id: string) => {
    const r = await repo.findRow(id);
    if (!r) throw new NotFoundError('Server not found');
    return r;
  };

  const keyListeners: ((server: ServerRow) => void)[] = [];

  /** Writes a change to the server's key material with its audit entry, and drops the pooled connection. */
  const changeKey = async (id: string, actor: Actor, action: string, values: ServerWrite) => {
    const row = await database.db.transaction(async (tx) => {
      const before = await repo.findRow(id, tx);
      if (!before) throw new NotFoundError('Server not found');
      await repo.update(id, values, tx);
      const after = (await repo.findRow(id, tx))!;
      await audit.record(
        actor,
        { action, entity: 'servers', entityId: id, before: snapshot(before), after: snapshot(after) },
        tx,
      );
      return after;
    });
    ssh.close(id);
    for (const listener of keyListeners) listener(row);
  };

  const keyInfo = (r: ServerRow): RsaKeyInfo => ({
    rsaKeySet: !!r.rsaKeyEnc,
    rsaKeyType: r.rsaKeyType,
    rsaKeyFingerprint: r.rsaKeyFingerprint,
    publicKey: r.rsaPublicKey,
  });

  return {
    ...crud,
    /** Called after a server's key changes. Demo mode uses it to install the public key on its SSH test host. */
    onKeyChanged(listener: (server: ServerRow) => void) {
      keyListeners.push(listener);
    },
    reveal: createRevealer<ServerRow>({
      database,
      audit,
      secrets,
      entity: 'servers',
      label: 'server',
      load: (id, ex) => repo.findRow(id, ex),
      columns: {
        ispmanagerPassword: (r) => r.ispmanagerPasswordEnc,
        directAdminPassword: (r) => r.directAdminPasswordEnc,
      },
    }),

    async getKey(id: string): Promise<RsaKeyInfo> {
      return keyInfo(await mustRow(id));
    },

    async saveKey(id: string, rsaKey: string, actor: Actor): Promise<RsaKeyInfo> {
      let parsed;
      try {
        parsed = parsePrivateKey(rsaKey);
      } catch (err) {
        if (err instanceof SshError) throw new ValidationError(err.message, { rsaKey: err.message }, 'bad_key');
        throw err;
      }
      await changeKey(id, actor, 'set_rsa_key', {
        rsaKeyEnc: secrets.encrypt(parsed.privateKey),
        rsaKeyType: parsed.type,
        rsaKeyFingerprint: parsed.fingerprint,
        rsaPublicKey: parsed.publicLine,
      });
      return keyInfo(await mustRow(id));
    },

    async generateKey(id: string, kind: 'ed25519' | 'rsa4096', actor: Actor): Promise<RsaKeyInfo> {
      await mustRow(id);
      const pair = await generateKeyPairLimited(kind, actor.userId ?? actor.ip ?? 'anonymous');
      await changeKey(id, actor, 'generate_rsa_key', {
        rsaKeyEnc: secrets.encrypt(pair.privateKey),
        rsaKeyType: kind === 'ed25519' ? 'ssh-ed25519' : 'ssh-rsa',
        rsaKeyFingerprint: pair.fingerprint,
        rsaPublicKey: pair.publicLine,
      });
      return keyInfo(await mustRow(id));
    },

    async deleteKey(id: string, actor: Actor): Promise<void> {
      const r = await mustRow(id);
      if (!r.rsaKeyEnc) throw new NotFoundError('This server has no RSA key');
      await changeKey(id, actor, 'delete_rsa_key', {
        rsaKeyEnc: null,
        rsaKeyType: null,
        rsaKeyFingerprint: null,
        rsaPublicKey: null,
      });
    },

    /** Forgets the trusted host key, so the next connection trusts whatever key the host presents. */
    async clearHostKey(id: string, actor: Actor): Promise<Server> {
      await changeKey(id, actor, 'clear_host_key', { hostKeyFingerprint: null });
      return crud.get(id);
    },

    /**
     * A server's hosting-panel access, its password decrypted for the one call that needs it (never returned
     * by the API); null when the URI, username or password is missing.
     */
    async panelAccess(
      id: string,
      panel: 'directAdmin' | 'ispmanager',
    ): Promise<{ uri: string; username: string; password: string; acceptSelfSigned: boolean } | null> {
      const r = await mustRow(id);
      const [uri, username, enc] =
        panel === 'directAdmin'
          ? [r.directAdminUri, r.directAdminUsername, r.directAdminPasswordEnc]
          : [r.ispmanagerUri, r.ispmanagerUsername, r.ispmanagerPasswordEnc];
      if (!uri || !username || !enc) return null;
      return {
        uri,
        username,
        password: secrets.decrypt(enc),
        acceptSelfSigned: panel === 'ispmanager' && r.ispmanagerAcceptSelfSigned,
      };
    },

    /** Stores the host key a file operation trusted on first use (decision 008), when none is stored yet. */
    async rememberHostKey(id: string, fingerprint: string): Promise<void> {
      const r = await repo.findRow(id);
      if (r && !r.hostKeyFingerprint) await repo.update(id, { hostKeyFingerprint: fingerprint });
    },

    /** The SSH target of a server, for the file operations of later modules. */
    async sshTarget(id: string): Promise<SshTarget> {
      const r = await mustRow(id);
      if (!r.rsaKeyEnc) throw new ValidationError('No RSA key is set for this server', undefined, 'no_key');
      return {
        serverId: r.id,
        host: r.ipAddress,
        port: r.sshPort,
        username: r.username,
        privateKey: secrets.decrypt(r.rsaKeyEnc),
        knownHostFingerprint: r.hostKeyFingerprint,
      };
    },

    /**
     * Opens a real SSH connection, reads the free space of domainsPath, and records the outcome as the
     * server's status. An incomplete record is a 400; a failure on the way or on the host is a 502.
     */
    async testConnection(id: string, actor: Actor, opts: { audit?: boolean } = {}): Promise<TestConnectionResult> {
      // The periodic health check keeps the status current without an audit entry per server per period.
      const record: typeof audit.record = opts.audit === false ? async () => undefined : audit.record;
      const r = await mustRow(id);
      if (!r.domainsPath)
        throw new ValidationError(
          'No domains path is set for this server',
          { domainsPath: 'Set the domains path first' },
          'path_not_set',
        );
      // A refused port is the operator's input to fix, not a failed connection: 400, status unchanged.
      assertSshProbePort(r.sshPort);
      const target = await this.sshTarget(id);
      const checkedAt = new Date();
      try {
        const result = await testConnection(ssh, target, r.domainsPath);
        const firstTrust = !r.hostKeyFingerprint;
        await database.db.transaction(async (tx) => {
          await repo.update(
            id,
            {
              status: 'online',
              freeSpaceBytes: result.freeSpaceBytes,
              totalSpaceBytes: result.totalBytes,
              checkedAt,
              checkError: null,
              hostKeyFingerprint: result.hostFingerprint,
            },
            tx,
          );
          await record(
            actor,
            {
              action: 'test_connection',
              entity: 'servers',
              entityId: id,
              details: {
                ok: true,
                freeSpace: result.freeSpaceBytes,
                ...(firstTrust ? { trustedHostKey: result.hostFingerprint } : {}),
              },
            },
            tx,
          );
        });
        return {
          message: CONNECTION_OK,
          status: 'online',
          freeSpace: result.freeSpaceBytes,
          totalSpace: result.totalBytes,
          hostKeyFingerprint: result.hostFingerprint,
          checkedAt: checkedAt.toISOString(),
        };
      } catch (err) {
        const message = err instanceof SshError || err instanceof AppError ? err.message : 'The connection failed';
        const code = err instanceof SshError ? err.code : 'failed';
        await database.db.transaction(async (tx) => {
          await repo.update(id, { status: 'offline', checkedAt, checkError: message }, tx);
          await record(
            actor,
            {
              action: 'test_connection',
              entity: 'servers',
              entityId: id,
              details: { ok: false, code, error: message },
            },
            tx,
          );
        });
        throw new UpstreamError('SSH', message, { timeout: code === 'timeout', code: `ssh_${code}` });
      }
    },
  };
}
export type ServersService = ReturnType<typeof createServersService>;
