import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { API_TOKEN_PREFIX } from '@fleetdesk/contract';
import { CliError } from './errors.ts';

/** Where the server and token are kept, and how to reach the server. */
export type Connection = { url: string; token: string };

/** `$XDG_CONFIG_HOME/fleetdesk/config.json`, else `~/.config/…` (`%APPDATA%\fleetdesk` on Windows). */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CONFIG_HOME ||
    (process.platform === 'win32' && env.APPDATA ? env.APPDATA : path.join(os.homedir(), '.config'));
  return path.join(base, 'fleetdesk', 'config.json');
}

/** The server's address as kept: http(s) only, no path, query or credentials; refused with a clear sentence. */
export function normalizeUrl(input: string): string {
  let u: URL;
  try {
    u = new URL(input.trim());
  } catch {
    throw new CliError(`--url must be the console's address, such as https://fleetdesk.example.com (got "${input}")`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:')
    throw new CliError('--url must start with https:// or http://');
  if (u.username || u.password) throw new CliError('--url must not hold a user name or password');
  return u.origin;
}

export function checkToken(token: string): string {
  const t = token.trim();
  if (!t.startsWith(API_TOKEN_PREFIX) || t.length > 200 || /\s/.test(t))
    throw new CliError(
      `The token must be a personal API token (${API_TOKEN_PREFIX}…), made on the console's Profile → API tokens`,
    );
  return t;
}

/** Keeps the connection, readable by the user only (0600, in a 0700 folder). */
export function saveConnection(conn: Connection, env: NodeJS.ProcessEnv = process.env): string {
  const file = configPath(env);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify({ url: conn.url, token: conn.token }, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
  return file;
}

/** The connection: FLEETDESK_URL / FLEETDESK_TOKEN first, else the kept one; a clear error when there is none. */
export function loadConnection(env: NodeJS.ProcessEnv = process.env): Connection {
  let kept: Partial<Connection> = {};
  const file = configPath(env);
  if (fs.existsSync(file)) {
    try {
      const raw = JSON.parse(fs.readFileSync(file, 'utf8').slice(0, 64 * 1024)) as Partial<Connection>;
      kept = {
        url: typeof raw.url === 'string' ? raw.url : undefined,
        token: typeof raw.token === 'string' ? raw.token : undefined,
      };
    } catch {
      throw new CliError(`${file} is not readable JSON: run fleetdesk login again`);
    }
  }
  const url = env.FLEETDESK_URL || kept.url;
  const token = env.FLEETDESK_TOKEN || kept.token;
  if (!url || !token)
    throw new CliError(
      'Not logged in: run fleetdesk login --url … --token … (or set FLEETDESK_URL and FLEETDESK_TOKEN)',
    );
  return { url: normalizeUrl(url), token: checkToken(token) };
}
