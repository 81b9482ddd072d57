import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import ssh2 from 'ssh2';
import type { AuthContext, Connection, ParsedKey } from 'ssh2';
import { runCommand } from './exec-commands.ts';
import { serveSftp } from './sftp-server.ts';
import { generateSshKeyPair } from './generate-key.ts';

const { Server, utils } = ssh2;

export type SshHostOptions = {
  /** Directory served as "/" over SFTP and to commands; a fresh temp dir (removed on close) when omitted. */
  rootDir?: string;
  /** OpenSSH public key lines (`ssh-ed25519 AAAA… comment`) allowed to log in. */
  authorizedKeys?: string[];
  /** Host private key (PEM or OpenSSH); an ed25519 key is generated when omitted. */
  hostKey?: string;
  /** When set, only this user name may log in; otherwise any name with an authorised key is accepted. */
  username?: string;
  /** 0 or omitted: a random free port. */
  port?: number;
};

export type SshHost = {
  port: number;
  host: '127.0.0.1';
  rootDir: string;
  /** `SHA256:<base64 without padding>`, as `ssh-keygen -lf` prints it. */
  hostKeyFingerprint: string;
  /** The host key the server presents (OpenSSH or PEM), so a restarted host can keep its identity. */
  hostKey: string;
  /** TCP connections accepted since start; lets tests prove a client pooled its connection. */
  readonly connectionCount: number;
  addAuthorizedKey(line: string): void;
  close(): Promise<void>;
};

function parseOrThrow(text: string, what: string): ParsedKey {
  const parsed = utils.parseKey(text);
  if (parsed instanceof Error) throw new Error(`${what} could not be parsed: ${parsed.message}`);
  const key = Array.isArray(parsed) ? (parsed[0] as ParsedKey | undefined) : parsed;
  if (!key) throw new Error(`${what} could not be parsed`);
  return key;
}

export function sshFingerprint(publicBlob: Buffer): string {
  return `SHA256:${crypto.createHash('sha256').update(publicBlob).digest('base64').replace(/=+$/, '')}`;
}

/** Starts an in-process SSH/SFTP host on 127.0.0.1 that accepts public-key logins only. */
export async function startSshHost(opts: SshHostOptions = {}): Promise<SshHost> {
  const ownsRoot = !opts.rootDir;
  const rootDir = opts.rootDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'fleetdesk-ssh-host-')));
  const hostKey = opts.hostKey ?? generateSshKeyPair('ed25519').private;
  const hostKeyFingerprint = sshFingerprint(parseOrThrow(hostKey, 'The host key').getPublicSSH());
  const allowed: ParsedKey[] = [];
  const addAuthorizedKey = (line: string) => {
    allowed.push(parseOrThrow(line.trim(), 'The authorised key'));
  };
  for (const line of opts.authorizedKeys ?? []) addAuthorizedKey(line);

  const sockets = new Set<net.Socket>();
  let connectionCount = 0;

  const authenticate = (ctx: AuthContext) => {
    if (ctx.method !== 'publickey' || (opts.username !== undefined && ctx.username !== opts.username)) {
      return ctx.reject(['publickey']);
    }
    const key = allowed.find((k) => k.getPublicSSH().equals(ctx.key.data));
    if (!key) return ctx.reject(['publickey']);
    // Without a signature the client only asks whether this key would do; with one, it must verify.
    if (!ctx.signature || !ctx.blob) return ctx.accept();
    // RSA signs with rsa-sha2-256/512: ctx.hashAlgo names the hash the signature was made with.
    if (key.verify(ctx.blob, ctx.signature, ctx.hashAlgo)) return ctx.accept();
    return ctx.reject(['publickey']);
  };

  const server = new Server({ hostKeys: [hostKey] }, (client: Connection) => {
    client.on('authentication', authenticate);
    client.on('error', () => undefined);
    client.on('session', (acceptSession) => {
      const session = acceptSession();
      session.on('pty', (accept) => accept?.());
      session.on('env', (accept) => accept?.());
      session.on('shell', (_accept, reject) => reject?.());
      session.on('sftp', (accept) => serveSftp(accept(), rootDir));
      session.on('exec', (accept, _reject, info) => {
        const stream = accept();
        void runCommand(rootDir, info.command)
          .catch((err: unknown) => ({ code: 1, stdout: '', stderr: `sh: ${(err as Error).message}\n` }))
          .then((r) => {
            if (r.stdout) stream.write(r.stdout);
            if (r.stderr) stream.stderr.write(r.stderr);
            stream.exit(r.code);
            stream.end();
          });
      });
    });
  });

  // Our own listener hands sockets to ssh2: it is where setNoDelay, counting and a hard close are possible.
  const listener = net.createServer({ noDelay: true }, (socket) => {
    connectionCount++;
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
    server.injectSocket(socket);
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(opts.port ?? 0, '127.0.0.1', () => {
      listener.off('error', reject);
      resolve();
    });
  });
  const { port } = listener.address() as AddressInfo;

  return {
    port,
    host: '127.0.0.1',
    rootDir,
    hostKeyFingerprint,
    hostKey,
    get connectionCount() {
      return connectionCount;
    },
    addAuthorizedKey,
    async close() {
      const closed = new Promise<void>((resolve) => listener.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
      if (ownsRoot) await fs.rm(rootDir, { recursive: true, force: true });
    },
  };
}
