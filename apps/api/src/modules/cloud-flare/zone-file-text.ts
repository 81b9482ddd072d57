/**
 * Text of BIND zone files (RFC 1035 §5.1) shared by the writer and the reader: escapes as BIND writes them
 * (`\DDD` is a byte, so one record is always one line), TXT character strings of at most 255 bytes, and the
 * one form a TXT value takes in the console, so that a file and a zone compare.
 */

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The longest character string (RFC 1035 §3.3: a length byte). */
export const TXT_STRING_MAX_BYTES = 255;

const isPrintableAscii = (b: number) => b >= 0x20 && b <= 0x7e;
const ddd = (b: number) => `\\${String(b).padStart(3, '0')}`;

/** The bytes of a quoted string's text, with BIND's escapes written out (`\"`, `\\`, `\DDD` for the rest). */
export function escapeString(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) {
    if (b === 0x22 || b === 0x5c) out += `\\${String.fromCharCode(b)}`;
    else out += isPrintableAscii(b) ? String.fromCharCode(b) : ddd(b);
  }
  return out;
}

/** Record data written as is (CAA, HTTPS, …) with every byte outside printable ASCII as `\DDD`. */
export function escapeData(text: string): string {
  let out = '';
  for (const b of utf8.encode(text)) out += isPrintableAscii(b) ? String.fromCharCode(b) : ddd(b);
  return out;
}

/** A domain name in a zone file: characters other than letters, digits, "-", "_" and "*" escaped in each label. */
export function escapeName(name: string): string {
  return name
    .split('.')
    .map((label) => {
      let out = '';
      for (const b of utf8.encode(label)) {
        const c = String.fromCharCode(b);
        if (/[A-Za-z0-9_*-]/.test(c)) out += c;
        else out += isPrintableAscii(b) ? `\\${c}` : ddd(b);
      }
      return out;
    })
    .join('.');
}

/** A text cut into character strings of at most 255 bytes, never inside a character. */
export function splitTxt(text: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  let cur: number[] = [];
  for (const ch of text) {
    const b = utf8.encode(ch);
    if (cur.length + b.length > TXT_STRING_MAX_BYTES) {
      out.push(Uint8Array.from(cur));
      cur = [];
    }
    cur.push(...b);
  }
  if (cur.length || !out.length) out.push(Uint8Array.from(cur));
  return out;
}

/** The bytes a zone-file token stands for: quotes dropped, `\DDD` a byte, `\X` the character X. Null if malformed. */
export function decodeToken(raw: string): Uint8Array | null {
  const quoted = raw.startsWith('"');
  const body = quoted ? raw.slice(1, -1) : raw;
  if (!body.includes('\\')) return utf8.encode(body);
  const out: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c !== 0x5c) {
      if (c < 0x80) out.push(c);
      else {
        const cp = body.codePointAt(i)!;
        if (cp > 0xffff) i++;
        out.push(...utf8.encode(String.fromCodePoint(cp)));
      }
      continue;
    }
    const d = /^\d{3}/.exec(body.slice(i + 1, i + 4));
    if (d) {
      const n = Number(d[0]);
      if (n > 255) return null;
      out.push(n);
      i += 3;
    } else if (i + 1 < body.length) {
      const cp = body.codePointAt(i + 1)!;
      out.push(...utf8.encode(String.fromCodePoint(cp)));
      i += cp > 0xffff ? 2 : 1;
    } else return null;
  }
  return Uint8Array.from(out);
}

/** UTF-8 text of bytes, or null when they are not UTF-8. */
export function textOf(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

const QUOTED_FORM = /^\s*"(?:[^"\\]|\\.)*"(?:\s+"(?:[^"\\]|\\.)*")*\s*$/s;
const QUOTED_STRING = /"(?:[^"\\]|\\.)*"/gs;

/** The strings of a TXT content written as quoted strings (`"a" "b"`, how Cloudflare keeps several), else null. */
export function quotedStringsOf(content: string): Uint8Array[] | null {
  if (!QUOTED_FORM.test(content)) return null;
  const out: Uint8Array[] = [];
  for (const m of content.match(QUOTED_STRING) ?? []) {
    const b = decodeToken(m);
    if (!b) return null;
    out.push(b);
  }
  return out;
}

/**
 * Several strings are one value cut up when they read as SPF, DKIM or DMARC (a "v=" or DKIM tag first) or when
 * each but the last is full (a long value split at 255 bytes); other TXT keep their strings apart.
 */
function joins(strings: Uint8Array[]): boolean {
  if (strings.length < 2) return true;
  const head = Buffer.from(strings[0]!.subarray(0, 16)).toString('latin1');
  if (/^\s*(v=|k=|p=)/i.test(head)) return true;
  return strings.slice(0, -1).every((s) => s.length >= TXT_STRING_MAX_BYTES - 3);
}

/**
 * A TXT value in the console's terms: one text when its strings make one value, else the strings quoted as
 * Cloudflare writes them (`"a" "b"`). Null when the bytes are not UTF-8 text.
 */
export function txtContentOf(strings: Uint8Array[]): string | null {
  if (joins(strings)) {
    const all = new Uint8Array(strings.reduce((n, s) => n + s.length, 0));
    let at = 0;
    for (const s of strings) {
      all.set(s, at);
      at += s.length;
    }
    return textOf(all);
  }
  const texts = strings.map(textOf);
  if (texts.some((t) => t === null)) return null;
  return texts.map((t) => `"${t!.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(' ');
}

/** A zone's TXT content in the same form as the reader gives (so `"hello"` and `hello` compare equal). */
export function canonicalTxt(content: string): string {
  const strings = quotedStringsOf(content);
  return (strings && txtContentOf(strings)) ?? content;
}

/** A TXT content as the strings a zone file writes: Cloudflare's quoted strings kept, each cut at 255 bytes. */
export function txtStringsForFile(content: string): Uint8Array[] {
  const strings = quotedStringsOf(content);
  if (!strings) return splitTxt(content);
  return strings.flatMap((s) => {
    const t = textOf(s);
    if (t !== null) return splitTxt(t);
    const parts: Uint8Array[] = [];
    for (let i = 0; i < s.length || i === 0; i += TXT_STRING_MAX_BYTES) parts.push(s.subarray(i, i + 255));
    return parts;
  });
}
