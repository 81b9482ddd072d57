import path from 'node:path';
import { domainToASCII } from 'node:url';
import { ValidationError } from '../../http/errors.ts';

/** Longest client path accepted, in characters; deeper trees are refused rather than walked. */
export const MAX_PATH_LENGTH = 4096;
/** Longest single name (a file or directory), as on ext4 and most file systems. */
export const MAX_NAME_BYTES = 255;

const BAD_PATH = 'The path is not allowed';

/**
 * The directory name of a domain under the server's domainsPath: its ASCII (punycode) form in lower case, as the
 * hosting panels name it (decision 020). Anything that is not a plain host name is refused, so the name can never
 * be "..", hold a slash, or start with a dot.
 */
export function domainDirName(domainName: string): string {
  const raw = domainName.trim().replace(/\.$/, '');
  // domainToASCII parses like a URL host and would cut "a/b" at the slash: refuse URL syntax first.
  const ascii = /[/\\?#@:%\s]/.test(raw) ? '' : domainToASCII(raw).toLowerCase();
  if (
    !ascii ||
    ascii.length > 253 ||
    !/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/.test(ascii)
  ) {
    throw new ValidationError(`The domain name ${JSON.stringify(domainName)} cannot name a directory`);
  }
  return ascii;
}

/** The absolute remote directory of a domain: `<domainsPath>/<domainDirName>`. */
export function domainDirPath(domainsPath: string, domainName: string): string {
  const base = normaliseRoot(domainsPath);
  return path.posix.join(base, domainDirName(domainName));
}

/** Checks an operator-set root (a server's domainsPath): absolute, no "..", no NUL or backslash. */
export function normaliseRoot(root: string): string {
  if (!root.startsWith('/') || /[\0\\]/.test(root) || root.split('/').includes('..')) {
    throw new ValidationError("The server's domains path must be an absolute path without '..'");
  }
  const n = path.posix.normalize(root);
  return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n;
}

function refuse(reason: string): never {
  throw new ValidationError(`${BAD_PATH}: ${reason}`, { path: reason }, 'bad_path');
}

/**
 * Splits a client path ("", "/", "css/site.css", "/img/") into its segments, refusing anything that could leave the
 * root lexically: "..", absolute or drive paths, NUL and other control characters, backslashes, over-long paths.
 * "." segments and repeated or trailing slashes are dropped. A leading "/" means the root, as the web's breadcrumbs
 * send it, never the host's root.
 */
export function clientSegments(clientPath: string | undefined | null): string[] {
  const p = clientPath ?? '';
  if (typeof p !== 'string') refuse('not a string');
  if (p.length > MAX_PATH_LENGTH) refuse('too long');
  // Control characters include NUL; U+2028/9 and the like are harmless but never legitimate in a path we show.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(p)) refuse('control characters');
  if (p.includes('\\')) refuse('backslashes');
  if (/^[a-zA-Z]:/.test(p)) refuse('drive letters');
  if (p.startsWith('//')) refuse('absolute paths');
  const segments = p.split('/').filter((s) => s !== '' && s !== '.');
  for (const s of segments) {
    if (s === '..' || /^\.{2,}$/.test(s.trim())) refuse("'..'");
    if (Buffer.byteLength(s) > MAX_NAME_BYTES) refuse('a name is too long');
  }
  return segments;
}

/** Resolves a client path to an absolute remote path inside root (lexically; symlinks are checked over SFTP). */
export function resolveInside(root: string, clientPath: string | undefined | null): string {
  const segments = clientSegments(clientPath);
  const resolved = path.posix.join(root, ...segments);
  if (!isInside(root, resolved)) refuse('outside the directory');
  return resolved;
}

/** True when p is root itself or below it (both absolute and normalised). */
export function isInside(root: string, p: string): boolean {
  return p === root || p.startsWith(root === '/' ? '/' : `${root}/`);
}

/** Checks one new name (rename, new folder): a single segment, no slashes, not "." or "..". */
export function checkName(name: unknown, field = 'name'): string {
  const fail = (why: string): never => {
    throw new ValidationError(why, { [field]: why }, 'bad_name');
  };
  if (typeof name !== 'string') return fail('Enter a name');
  const n = name.trim();
  if (!n) return fail('Enter a name');
  if (Buffer.byteLength(n) > MAX_NAME_BYTES) return fail(`A name can be at most ${MAX_NAME_BYTES} bytes`);
  // eslint-disable-next-line no-control-regex
  if (/[/\\\u0000-\u001f\u007f]/.test(n)) return fail('A name cannot contain slashes or control characters');
  if (/^\.+$/.test(n)) return fail("A name cannot be '.' or '..'");
  return n;
}
