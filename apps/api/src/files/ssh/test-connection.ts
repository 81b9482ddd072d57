import { ValidationError } from '../../http/errors.ts';
import { sshPortRefusal } from '../../lib/probe-ports.ts';
import { SshError } from './ssh-error.ts';
import type { SshPool } from './ssh-pool.ts';
import { hostPort, type SshTarget } from './types.ts';

export type ConnectionTestResult = { ok: true; freeSpaceBytes: number; totalBytes: number; hostFingerprint: string };

/** Quotes one argument for a POSIX shell: single quotes, with embedded ones written as '\''. */
export function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * Reads the last line of `df -P` output. Matching from the right keeps file system names with spaces intact;
 * -P guarantees one line per file system and 1024-byte blocks with -k.
 */
export function parseDfOutput(stdout: string): { totalBytes: number; freeSpaceBytes: number } | null {
  const lines = stdout.trim().split('\n');
  const last = lines.length > 1 ? lines[lines.length - 1] : undefined;
  const m = /\s(\d+)\s+(\d+)\s+(\d+)\s+(\d+%|-)\s+\S.*$/.exec(last ?? '');
  if (!m?.[1] || !m[3]) return null;
  return { totalBytes: Number(m[1]) * 1024, freeSpaceBytes: Number(m[3]) * 1024 };
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** Refuses, with a 400 naming the field, a port that an SSH connection test may not probe (decision 013). */
export function assertSshProbePort(port: number) {
  const why = sshPortRefusal(port);
  if (why) throw new ValidationError(why, { sshPort: why }, 'port_not_allowed');
}

/** Logs in, checks that domainsPath exists, and reports the free space of its file system. */
export async function testConnection(
  pool: SshPool,
  target: SshTarget,
  domainsPath: string,
): Promise<ConnectionTestResult> {
  assertSshProbePort(target.port);
  if (!domainsPath.trim()) throw new SshError('path_missing', 'No domains path is set for this server');
  // A leading "-" would read as an option to df.
  const arg = domainsPath.startsWith('-') ? `./${domainsPath}` : domainsPath;
  const result = await pool.exec(target, `df -Pk ${shellQuote(arg)}`);
  if (result.code !== 0) {
    if (/No such file or directory/i.test(result.stderr)) {
      throw new SshError('path_missing', `Path ${domainsPath} does not exist on the server`);
    }
    if (result.code === 127) {
      throw new SshError('command_failed', `df is not available on ${hostPort(target)}`);
    }
    throw new SshError(
      'command_failed',
      `df failed on ${hostPort(target)} (exit code ${result.code})${result.stderr.trim() ? `: ${firstLine(result.stderr)}` : ''}`,
    );
  }
  const space = parseDfOutput(result.stdout);
  if (!space) throw new SshError('command_failed', `Could not read the output of df on ${hostPort(target)}`);
  return { ok: true, ...space, hostFingerprint: result.hostFingerprint };
}
