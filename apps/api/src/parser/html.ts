import render from 'dom-serializer';
import { Element, Text, type ChildNode } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import { parseSrcset, stringifySrcset } from 'srcset';
import { rewriteCss } from './css.ts';
import type { RefKind } from './url-to-path.ts';

/** Answers the new reference for an absolute URL found in a page, or null to leave the attribute as it is. */
export type MapRef = (url: URL, kind: RefKind) => string | null;

/** Which attribute of which element holds a page link or a requisite. */
const URL_ATTRS: Record<string, [attr: string, kind: RefKind][]> = {
  a: [['href', 'page']],
  area: [['href', 'page']],
  iframe: [['src', 'page']],
  frame: [['src', 'page']],
  script: [['src', 'asset']],
  img: [
    ['src', 'asset'],
    ['data-src', 'asset'],
  ],
  input: [['src', 'asset']],
  source: [['src', 'asset']],
  video: [
    ['src', 'asset'],
    ['poster', 'asset'],
  ],
  audio: [['src', 'asset']],
  track: [['src', 'asset']],
  embed: [['src', 'asset']],
  object: [['data', 'asset']],
  image: [
    ['href', 'asset'],
    ['xlink:href', 'asset'],
  ],
  use: [
    ['href', 'asset'],
    ['xlink:href', 'asset'],
  ],
  body: [['background', 'asset']],
  table: [['background', 'asset']],
  td: [['background', 'asset']],
};
const SRCSET_ATTRS = ['srcset', 'data-srcset', 'imagesrcset'];
/** `<link rel=…>` values whose href is a requisite of the page. */
const REQUISITE_RELS = new Set([
  'stylesheet',
  'icon',
  'shortcut',
  'apple-touch-icon',
  'apple-touch-icon-precomposed',
  'mask-icon',
  'manifest',
  'preload',
  'prefetch',
  'modulepreload',
  'image_src',
]);
const SKIP_SCHEMES = /^\s*(data|javascript|mailto|tel|about|blob|sms|ftp|file|vbscript):/i;
const MAX_NODES = 500_000;

function findHead(nodes: ChildNode[]): Element | null {
  for (const n of nodes) {
    if (!(n instanceof Element)) continue;
    if (n.name === 'head') return n;
    if (n.name === 'html') return findHead(n.children);
  }
  return null;
}

/**
 * The charset a page declares: the Content-Type header's, else a `<meta charset>` or `http-equiv` one in the first
 * 4 KB (read with the HTML parser, as a browser's prescan does), else UTF-8.
 */
export function sniffCharset(contentType: string | undefined, body: Buffer): string {
  const fromHeader = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType ?? '')?.[1];
  let found = fromHeader ?? null;
  if (!found) {
    const head = parseDocument(body.subarray(0, 4096).toString('latin1'));
    const stack: ChildNode[] = [...head.children];
    while (stack.length && !found) {
      const n = stack.shift()!;
      if (!(n instanceof Element)) continue;
      if (n.name === 'meta') {
        found =
          n.attribs.charset?.trim() || /charset\s*=\s*["']?([\w.:-]+)/i.exec(n.attribs.content ?? '')?.[1] || null;
      }
      stack.push(...n.children);
    }
  }
  const label = (found ?? 'utf-8').toLowerCase();
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return 'utf-8';
  }
}

/** Resolves a reference against the page's base; null for fragments, non-http schemes and garbage. */
export function resolveRef(ref: string, base: URL): URL | null {
  const r = ref.trim();
  if (!r || r.startsWith('#') || SKIP_SCHEMES.test(r) || r.length > 4000) return null;
  try {
    const u = new URL(r, base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : null;
  } catch {
    return null;
  }
}

/**
 * Rewrites a page with a real HTML parser (htmlparser2): every link and requisite (`href`, `src`, `srcset`,
 * `poster`, `<style>` and `style=""` CSS, meta refresh) is resolved against the page's URL (or its `<base>`, which is
 * then dropped, since relative links must resolve against the copy) and replaced by what `map` answers.
 */
export function rewriteHtml(html: string, pageUrl: URL, map: MapRef, opts: { wasUtf8?: boolean } = {}): string {
  const doc = parseDocument(html, { decodeEntities: true });
  let base = pageUrl;
  let charsetMeta = false;
  const mapAttr = (el: Element, attr: string, kind: RefKind) => {
    const v = el.attribs[attr];
    if (v === undefined) return;
    const u = resolveRef(v, base);
    if (!u) return;
    const to = map(u, kind);
    if (to !== null) el.attribs[attr] = to;
  };
  const mapCss = (css: string) =>
    rewriteCss(css, (ref) => {
      const u = resolveRef(ref, base);
      return u ? map(u, 'asset') : null;
    });

  // Iterative walk in document order: deep documents cannot blow the stack, and the node count is bounded.
  const stack: ChildNode[] = [...doc.children].reverse();
  let seen = 0;
  while (stack.length) {
    const node = stack.pop()!;
    if (++seen > MAX_NODES) break;
    if (!(node instanceof Element)) continue;
    const name = node.name.toLowerCase();
    if (name === 'base') {
      const href = node.attribs.href;
      const u = href !== undefined ? resolveRef(href, pageUrl) : null;
      if (u) base = u;
      delete node.attribs.href;
    } else if (name === 'link') {
      const rels = (node.attribs.rel ?? '').toLowerCase().split(/\s+/);
      if (rels.some((r) => REQUISITE_RELS.has(r))) mapAttr(node, 'href', 'asset');
    } else if (name === 'meta' && node.attribs.charset !== undefined) {
      // The copy is always written as UTF-8, whatever the page was in.
      node.attribs.charset = 'utf-8';
      charsetMeta = true;
    } else if (name === 'meta' && (node.attribs['http-equiv'] ?? '').toLowerCase() === 'content-type') {
      node.attribs.content = 'text/html; charset=utf-8';
      charsetMeta = true;
    } else if (name === 'meta' && (node.attribs['http-equiv'] ?? '').toLowerCase() === 'refresh') {
      const content = node.attribs.content ?? '';
      const m = /^(\s*\d*\.?\d*\s*[;,]\s*(?:url\s*=\s*)?)(['"]?)(.+?)\2\s*$/i.exec(content);
      const u = m ? resolveRef(m[3]!, base) : null;
      const to = u ? map(u, 'page') : null;
      if (m && to !== null) node.attribs.content = `${m[1]}${to}`;
    } else if (name === 'style') {
      for (const c of node.children) if (c instanceof Text) c.data = mapCss(c.data);
    }
    for (const [attr, kind] of URL_ATTRS[name] ?? []) mapAttr(node, attr, kind);
    for (const attr of SRCSET_ATTRS) {
      const v = node.attribs[attr];
      if (v === undefined) continue;
      try {
        const items = parseSrcset(v).map((c) => {
          const u = resolveRef(c.url, base);
          const to = u ? map(u, 'asset') : null;
          return { ...c, url: to ?? c.url };
        });
        node.attribs[attr] = stringifySrcset(items);
      } catch {
        // A srcset the parser cannot read is left as it is.
      }
    }
    if (node.attribs.style) node.attribs.style = mapCss(node.attribs.style);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  if (!charsetMeta && opts.wasUtf8 === false) {
    const meta = new Element('meta', { charset: 'utf-8' });
    const head = findHead(doc.children);
    if (head) {
      meta.parent = head;
      head.children.unshift(meta);
    } else {
      doc.children.unshift(meta);
    }
  }
  return render(doc, { encodeEntities: 'utf8', decodeEntities: true });
}
