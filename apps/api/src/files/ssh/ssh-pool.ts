import crypto from 'node:crypto';
import net from 'node:net';
import ssh2 from 'ssh2';
import type { Client as SshClient, ClientChannel, SFTPWrapper } from 'ssh2';
import { parsePrivateKey, sshFingerprint } from './keys.ts';
import { SshError } from './ssh-error.ts';
import { hostPort, type ExecResult, type SshTarget } from './types.ts';

const { Client } = ssh2;

export type SshPoolOptions = {
  /** TCP connect, handshake and authentication together (ssh2's readyTimeout). Default 10 s. */
  connectTimeoutMs?: number;
  /** An unused connection is closed after this long. Default 60 s. */
  idleMs?: number;
  /** Default limit for one command or for opening an SFTP session. Default 30 s. */
  commandTimeoutMs?: number;
  /** Caps captured stdout and stderr each, so a chatty command cannot exhaust memory. Default 10 MiB. */
  maxOutputBytes?: number;
};

export type SshSession = {
  client: SshClient;
  /** The fingerprint the server presented; equal to the target's when it had one. */
  hostFingerprint: string;
};

export type SshPool = {
  /** Runs fn on the server's pooled connection, opening (and verifying) one when needed. */
  withConnection<T>(target: SshTarget, fn: (session: SshSession) => Promise<T>): Promise<T>;
  exec(target: SshTarget, command: string, opts?: { timeoutMs?: number }): Promise<ExecResult>;
  /** Opens an SFTP session on the pooled connection for the duration of fn. */
  sftp<T>(target: SshTarget, fn: (sftp: SFTPWrapper, session: SshSession) => Promise<T>): Promise<T>;
  close(serverId: string): void;
  closeAll(): void;
  /** Open or opening connections, for tests and metrics. */
  readonly size: number;
};

type Entry = {
  identity: string;
  connecting: Promise<SshSession>;
  session: SshSession | null;
  active: number;
  idleTimer: NodeJS.Timeout | null;
  dead: boolean;
};

const seconds = (ms: number) => `${ms / 1000} s`;

// What makes a pooled connection reusable: a change of any of these needs a new login.
function identityOf(t: SshTarget): string {
  const keyHash = crypto.createHash('sha256').update(t.privateKey).digest('base64');
  return JSON.stringify([t.host, t.port, t.username, keyHash]);
}

function hostKeyChanged(target: SshTarget, seen: string): SshError {
  return new SshError(
    'host_key_changed',
    `Host key changed for ${hostPort(target)}: expected ${target.knownHostFingerprint}, got ${seen} ` +
      '(clear the stored fingerprint on the server page if this is expected)',
  );
}

function connectError(err: Error & { level?: string; code?: string }, target: SshTarget, timeoutMs: number): SshError {
  const where = hostPort(target);
  if (err.level === 'client-timeout' || err.code === 'ETIMEDOUT') {
    return new SshError('timeout', `Timed out after ${seconds(timeoutMs)} connecting to ${where}`);
  }
  if (err.level === 'client-authentication') {
    return new SshError(
      'auth_failed',
      `Authentication failed for ${target.username}@${target.host} (the key was not accepted)`,
    );
  }
  switch (err.code) {
    case 'ECONNREFUSED':
      return new SshError('refused', `Connection refused by ${where}`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new SshError('unreachable', `The host name ${target.host} could not be resolved`);
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EHOSTDOWN':
      return new SshError('unreachable', `${where} is unreachable from here`);
    case 'ECONNRESET':
      return new SshError('unreachable', `${where} closed the connection during the SSH handshake`);
    default:
      return new SshError('unreachable', `Could not connect to ${where}: ${err.message}`);
  }
}

/** One TCP+SSH login, verifying the host key before authenticating. */
function connect(target: SshTarget, privateKey: string, timeoutMs: number): Promise<SshSession> {
  return new Promise((resolve, reject) => {
    // Our own socket, so Nagle is off from the first packet: each SFTP round trip otherwise waits 40 ms or more.
    const sock = net.connect({ host: target.host, port: target.port, noDelay: true });
    const client = new Client();
    let seen: string | null = null;
    let settled = false;
    const fail = (err: SshError) => {
      if (settled) return;
      settled = true;
      client.destroy();
      sock.destroy();
      reject(err);
    };
    client.on('ready', () => {
      if (settled) return;
      settled = true;
      resolve({ client, hostFingerprint: seen ?? '' });
    });
    client.on('error', (err: Error & { level?: string; code?: string }) => {
      if (seen && target.knownHostFingerprint && seen !== target.knownHostFingerprint) {
        return fail(hostKeyChanged(target, seen));
      }
      fail(connectError(err, target, timeoutMs));
    });
    client.on('close', () =>
      fail(new SshError('unreachable', `${hostPort(target)} closed the connection during the SSH handshake`)),
    );
    client.connect({
      sock,
      username: target.username,
      privateKey,
      readyTimeout: timeoutMs,
      keepaliveInterval: 15_000,
      hostVerifier: (key: Buffer) => {
        seen = sshFingerprint(key);
        // Trust on first use: with nothing stored any key is accepted, and the caller stores `hostFingerprint`.
        return target.knownHostFingerprint === null || target.knownHostFingerprint === seen;
      },
    });
  });
}

function runCommand(
  session: SshSession,
  target: SshTarget,
  command: string,
  timeoutMs: number,
  maxBytes: number,
): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    session.client.exec(command, (err, stream: ClientChannel) => {
      if (err) return reject(new SshError('command_failed', `Could not run a command on ${hostPort(target)}`));
      const out: Buffer[] = [];
      const errOut: Buffer[] = [];
      let outLen = 0;
      let errLen = 0;
      let code: number | null = null;
      const timer = setTimeout(() => {
        stream.close();
        reject(new SshError('timeout', `The command timed out after ${seconds(timeoutMs)} on ${hostPort(target)}`));
      }, timeoutMs);
      stream.on('data', (d: Buffer) => {
        if (outLen < maxBytes) out.push(d);
        outLen += d.length;
      });
      stream.stderr.on('data', (d: Buffer) => {
        if (errLen < maxBytes) errOut.push(d);
        errLen += d.length;
      });
      stream.on('exit', (c: number | null) => (code = c));
      stream.on('close', () => {
        clearTimeout(timer);
        resolve({
          // A command killed by a signal has no exit code; report it as a failure.
          code: code ?? -1,
          stdout: Buffer.concat(out).subarray(0, maxBytes).toString('utf8'),
          stderr: Buffer.concat(errOut).subarray(0, maxBytes).toString('utf8'),
          hostFingerprint: session.hostFingerprint,
        });
      });
    });
  });
}

export function createSshPool(opts: SshPoolOptions = {}): SshPool {
  const connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
  const idleMs = opts.idleMs ?? 60_000;
  const commandTimeoutMs = opts.commandTimeoutMs ?? 30_000;
  const maxOutputBytes = opts.maxOutputBytes ?? 10 * 1024 * 1024;
  const entries = new Map<string, Entry>();

  /**
   * Takes an entry out of the pool. Calls still running on it finish first unless `now` is set (shutdown, or a
   * connection that may be wedged); the connection closes when the last of them releases it.
   */
  const drop = (serverId: string, entry: Entry, now = false) => {
    entry.dead = true;
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    if (entries.get(serverId) === entry) entries.delete(serverId);
    if (now || entry.active === 0) entry.session?.client.end();
  };

  const open = (target: SshTarget): Entry => {
    if (!target.privateKey.trim()) {
      throw new SshError('no_key', `No SSH key is set for ${target.username}@${target.host}`);
    }
    const { privateKey } = parsePrivateKey(target.privateKey);
    const entry: Entry = {
      identity: identityOf(target),
      connecting: connect(target, privateKey, connectTimeoutMs),
      session: null,
      active: 0,
      idleTimer: null,
      dead: false,
    };
    entry.connecting.then(
      (session) => {
        entry.session = session;
        // A broken connection leaves the pool at once; the next call opens a new one.
        session.client.on('error', () => drop(target.serverId, entry));
        session.client.on('close', () => drop(target.serverId, entry));
        if (entry.dead && entry.active === 0) session.client.end();
      },
      () => drop(target.serverId, entry),
    );
    entries.set(target.serverId, entry);
    return entry;
  };

  const acquire = async (target: SshTarget): Promise<{ entry: Entry; session: SshSession }> => {
    let entry = entries.get(target.serverId);
    const stale =
      entry &&
      (entry.dead ||
        entry.identity !== identityOf(target) ||
        (entry.session !== null &&
          target.knownHostFingerprint !== null &&
          entry.session.hostFingerprint !== target.knownHostFingerprint));
    if (entry && stale) drop(target.serverId, entry);
    if (!entry || stale) entry = open(target);
    entry.active++;
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    entry.idleTimer = null;
    try {
      const session = await entry.connecting;
      // A caller that joined a connection opened for another caller still gets its own fingerprint check.
      if (target.knownHostFingerprint !== null && session.hostFingerprint !== target.knownHostFingerprint) {
        throw hostKeyChanged(target, session.hostFingerprint);
      }
      return { entry, session };
    } catch (err) {
      release(target.serverId, entry);
      throw err;
    }
  };

  const release = (serverId: string, entry: Entry) => {
    entry.active--;
    if (entry.active > 0) return;
    if (entry.dead) return void entry.session?.client.end();
    entry.idleTimer = setTimeout(() => drop(serverId, entry), idleMs);
    entry.idleTimer.unref();
  };

  const withConnection = async <T>(target: SshTarget, fn: (session: SshSession) => Promise<T>): Promise<T> => {
    const { entry, session } = await acquire(target);
    try {
      return await fn(session);
    } catch (err) {
      // A timed-out command may have wedged the connection: start afresh next time.
      if (err instanceof SshError && (err.code === 'timeout' || err.code === 'unreachable')) {
        drop(target.serverId, entry, true);
      }
      throw err;
    } finally {
      release(target.serverId, entry);
    }
  };

  return {
    withConnection,
    exec: (target, command, execOpts) =>
      withConnection(target, (session) =>
        runCommand(session, target, command, execOpts?.timeoutMs ?? commandTimeoutMs, maxOutputBytes),
      ),
    sftp: (target, fn) =>
      withConnection(target, async (session) => {
        const sftp = await new Promise<SFTPWrapper>((resolve, reject) => {
          let timedOut = false;
          const timer = setTimeout(() => {
            timedOut = true;
            reject(
              new SshError(
                'timeout',
                `Opening SFTP timed out after ${seconds(commandTimeoutMs)} on ${hostPort(target)}`,
              ),
            );
          }, commandTimeoutMs);
          session.client.sftp((err, s) => {
            clearTimeout(timer);
            if (timedOut) return void s?.end();
            if (err) reject(new SshError('command_failed', `SFTP is not available on ${hostPort(target)}`));
            else resolve(s);
          });
        });
        try {
          return await fn(sftp, session);
        } finally {
          sftp.end();
        }
      }),
    close(serverId) {
      const entry = entries.get(serverId);
      if (entry) drop(serverId, entry, true);
    },
    closeAll() {
      for (const [serverId, entry] of [...entries]) drop(serverId, entry, true);
    },
    get size() {
      return entries.size;
    },
  };
}
