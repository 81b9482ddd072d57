import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { derInteger, generateSelfSignedCert } from './self-signed-cert.ts';

describe('self-signed certificate', () => {
  it('writes integers in DER minimal form (no leading zero byte unless the next has its top bit set)', () => {
    expect(derInteger(Buffer.from([0x00, 0x05]))).toEqual(Buffer.from([0x02, 0x01, 0x05]));
    expect(derInteger(Buffer.from([0x00, 0x00, 0x85]))).toEqual(Buffer.from([0x02, 0x02, 0x00, 0x85]));
    expect(derInteger(Buffer.from([0x85]))).toEqual(Buffer.from([0x02, 0x02, 0x00, 0x85]));
    expect(derInteger(Buffer.from([0x00, 0x00]))).toEqual(Buffer.from([0x02, 0x01, 0x00]));
    expect(derInteger(Buffer.from([0x7f, 0x00]))).toEqual(Buffer.from([0x02, 0x02, 0x7f, 0x00]));
  });

  it('makes a certificate OpenSSL parses whatever the random serial (a zero first byte once made "illegal padding")', () => {
    const zeroFirst = Buffer.from([0x00, 0x12, ...Array<number>(10).fill(0xab)]);
    const real = crypto.randomBytes;
    (crypto as { randomBytes: unknown }).randomBytes = () => zeroFirst;
    let made: { key: string; cert: string };
    try {
      made = generateSelfSignedCert('zero serial');
    } finally {
      (crypto as { randomBytes: unknown }).randomBytes = real;
    }
    const x509 = new crypto.X509Certificate(made.cert);
    expect(x509.serialNumber.toUpperCase()).toBe('12ABABABABABABABABABAB');
    expect(x509.checkPrivateKey(crypto.createPrivateKey(made.key))).toBe(true);
    expect(x509.checkHost('localhost')).toBe('localhost');
    expect(x509.checkIP('127.0.0.1')).toBe('127.0.0.1');
  });
});
