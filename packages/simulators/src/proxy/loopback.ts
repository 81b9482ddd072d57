import net from 'node:net';

/** The 16 bytes of an IPv6 address in any textual form (with "::" and an embedded dotted quad), or null. */
export function ipv6Bytes(text: string): Buffer | null {
  if (!net.isIPv6(text)) return null;
  let s = text.toLowerCase();
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    s = `${s.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = s.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

/**
 * Maps a requested destination to a loopback address, or null when it is anything else.
 * Names other than localhost are refused without a DNS lookup, so the proxy never sends traffic off the machine.
 */
export function loopbackTarget(host: string): string | null {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === 'localhost') return '127.0.0.1';
  if (net.isIPv4(bare)) return bare.startsWith('127.') ? bare : null;
  const b = ipv6Bytes(bare);
  if (!b) return null;
  if (b.subarray(0, 15).every((x) => x === 0) && b[15] === 1) return '::1';
  const mapped = b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
  return mapped && b[12] === 127 ? [...b.subarray(12)].join('.') : null;
}
