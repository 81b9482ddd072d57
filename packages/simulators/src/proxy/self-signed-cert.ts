import crypto from 'node:crypto';

// A minimal DER writer: enough ASN.1 to build one X.509 v3 certificate without a certificate library.
function der(tag: number, content: Buffer): Buffer {
  const len = content.length;
  let header: Buffer;
  if (len < 0x80) header = Buffer.from([tag, len]);
  else if (len < 0x100) header = Buffer.from([tag, 0x81, len]);
  else header = Buffer.from([tag, 0x82, len >> 8, len & 0xff]);
  return Buffer.concat([header, content]);
}
const seq = (...items: Buffer[]) => der(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => der(0x31, Buffer.concat(items));
const explicit = (n: number, item: Buffer) => der(0xa0 + n, item);
const utf8 = (s: string) => der(0x0c, Buffer.from(s, 'utf8'));
const octets = (b: Buffer) => der(0x04, b);
const bitString = (b: Buffer) => der(0x03, Buffer.concat([Buffer.from([0]), b]));

/**
 * A non-negative INTEGER in DER's minimal form: OpenSSL refuses a redundant leading zero byte ("illegal padding"),
 * which a random serial starting with 0x00 once produced; a leading 1 bit needs a zero byte, or it reads negative.
 */
export function derInteger(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  const v = b.length ? b.subarray(i) : Buffer.from([0]);
  return der(0x02, (v[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), v]) : v);
}

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * a + b];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
}

function utcTime(d: Date): Buffer {
  const s = d.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';
  return der(0x17, Buffer.from(s, 'ascii'));
}

/**
 * A fresh self-signed ECDSA P-256 certificate for 127.0.0.1, ::1 and localhost, valid for a day either side of now.
 * Generated at start so no test key or expiry date lives in the repository.
 */
export function generateSelfSignedCert(
  commonName = 'fleetdesk test proxy',
  opts: {
    /** Days from now to the certificate's end (default 1); a site near expiry is made with a small number. */
    validDays?: number;
    /** Host names it is for, besides localhost and the loopback addresses. */
    dnsNames?: string[];
  } = {},
): { key: string; cert: string } {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ecdsaWithSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const name = seq(set(seq(oid('2.5.4.3'), utf8(commonName))));
  const day = 24 * 3600 * 1000;
  const altNames = seq(
    der(0x82, Buffer.from('localhost')),
    ...(opts.dnsNames ?? []).map((n) => der(0x82, Buffer.from(n))),
    der(0x87, Buffer.from([127, 0, 0, 1])),
    der(0x87, Buffer.from([...Array(15).fill(0), 1])),
  );
  const tbs = seq(
    explicit(0, derInteger(Buffer.from([2]))),
    derInteger(crypto.randomBytes(12)),
    ecdsaWithSha256,
    name,
    seq(utcTime(new Date(Date.now() - day)), utcTime(new Date(Date.now() + (opts.validDays ?? 1) * day))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, seq(seq(oid('2.5.29.17'), octets(altNames)))),
  );
  const signature = crypto.sign('sha256', tbs, privateKey);
  const certDer = seq(tbs, ecdsaWithSha256, bitString(signature));
  const body = certDer.toString('base64').replace(/(.{64})/g, '$1\n');
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    cert: `-----BEGIN CERTIFICATE-----\n${body}${body.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`,
  };
}
