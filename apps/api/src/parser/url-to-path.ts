import crypto from 'node:crypto';
import path from 'node:path';

/** How a URL was referenced: a page (a link, a frame) or a requisite (CSS, JS, an image, a font…). */
export type RefKind = 'page' | 'asset';

const PAGE_FILE = /\.html?$/i;
/** Server-side script names: what they answer is a page, so it becomes `<name>/index.html`. */
const SCRIPT_EXT = /\.(php\d?|aspx?|jspx?|cgi|pl|cfm|shtml)$/i;
const MAX_SEGMENT_BYTES = 200;
const MAX_QUERY_CHARS = 80;

const hash8 = (s: string) => crypto.createHash('sha256').update(s).digest('hex').slice(0, 8);

/** Cuts a name to a byte budget on a character boundary, keeping it unique with a short hash of the whole. */
function bounded(name: string, maxBytes: number): string {
  if (Buffer.byteLength(name) <= maxBytes) return name;
  let cut = name;
  while (Buffer.byteLength(cut) > maxBytes - 9) cut = cut.slice(0, -1);
  return `${cut}-${hash8(name)}`;
}

/**
 * One path segment as a safe file name: percent-decoded (so `%D0%B0` becomes `а`), with encoded slashes,
 * backslashes and control characters replaced, never `.`/`..`, never hidden (a site must not be able to write
 * `.htaccess` into the domain directory), at most 200 bytes.
 */
export function safeSegment(raw: string): string {
  let s: string;
  try {
    s = decodeURIComponent(raw);
  } catch {
    s = raw;
  }
  // eslint-disable-next-line no-control-regex
  s = s.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]/g, '_');
  if (s.startsWith('.')) s = `_${s.slice(1)}`;
  if (!s.trim()) s = '_';
  return bounded(s, MAX_SEGMENT_BYTES);
}

/** A query string as a file-name part: `@` and the decoded query with unsafe characters replaced, bounded. */
function querySuffix(search: string): string {
  if (!search || search === '?') return '';
  const q = safeSegment(search.slice(1)).replace(/[^\p{L}\p{N}._~=+,&-]/gu, '_');
  return `@${q.length > MAX_QUERY_CHARS ? `${q.slice(0, MAX_QUERY_CHARS)}-${hash8(search)}` : q}`;
}

/** Puts a suffix before a file name's extension: `style.css` + `@v=2` → `style@v=2.css`. */
function withSuffix(name: string, suffix: string): string {
  if (!suffix) return name;
  const ext = path.posix.extname(name);
  const base = ext && ext.length < name.length ? name.slice(0, -ext.length) : name;
  return bounded(`${base}${suffix}`, MAX_SEGMENT_BYTES) + (base === name ? '' : ext);
}

/**
 * The kind a reference is fetched as: a link (`<a href>`) to a file with an extension that is neither a page nor a
 * server script (`.pdf`, `.zip`, `.jpg`) is a file to keep as it is, not a page.
 */
export function refKindOf(url: URL, declared: RefKind): RefKind {
  if (declared === 'asset') return 'asset';
  const last = url.pathname.split('/').at(-1) ?? '';
  const ext = /\.([A-Za-z0-9]{1,8})$/.exec(last);
  return ext && !PAGE_FILE.test(last) && !SCRIPT_EXT.test(last) ? 'asset' : 'page';
}

/**
 * Where a URL's copy is written, relative to the domain directory ("/"-separated, never leading "/", never "..").
 * Pages become files a static server finds: `/` → `index.html`, `/a/b` and `/a/b/` → `a/b/index.html`,
 * `/a/b.html` stays, `/a/b.php` → `a/b.php/index.html`. Requisites keep their path. A query string becomes part of
 * the name (`/list?p=2` → `list/index@p=2.html`). It depends on the URL and its kind only, so a link can be
 * rewritten before its target is fetched.
 */
export function localPathOf(url: URL, kind: RefKind): string {
  const raw = url.pathname.split('/').filter((s) => s !== '');
  const segments = raw.map(safeSegment);
  const trailingSlash = url.pathname.endsWith('/');
  const last = segments.at(-1);
  const suffix = querySuffix(url.search);
  if (kind === 'page') {
    if (!last || trailingSlash || !PAGE_FILE.test(last) || SCRIPT_EXT.test(last))
      return [...segments, withSuffix('index.html', suffix)].join('/');
    return [...segments.slice(0, -1), withSuffix(last, suffix)].join('/');
  }
  if (!last || trailingSlash) return [...segments, withSuffix('index', suffix)].join('/');
  return [...segments.slice(0, -1), withSuffix(last, suffix)].join('/');
}

/** A relative link from one local file to another (both domain-relative), URL-encoded, with `#hash` kept. */
export function relativeLink(fromFile: string, toFile: string, hash = ''): string {
  const fromDir = path.posix.dirname(`/${fromFile}`);
  let rel = path.posix.relative(fromDir, `/${toFile}`);
  if (!rel) rel = path.posix.basename(toFile);
  // `index.html` links read better as their directory, but a static server may not map `dir/` without a slash;
  // keeping the file name works on every server and when opened from disk.
  return (
    rel
      .split('/')
      .map((s) => (s === '..' ? s : encodeURIComponent(s).replace(/%40/g, '@').replace(/%3D/g, '=')))
      .join('/') + hash
  );
}
