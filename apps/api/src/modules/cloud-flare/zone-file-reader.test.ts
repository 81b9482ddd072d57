import { afterAll, describe, expect, it } from 'vitest';
import { ZONE_FILE_TEXT } from '@fleetdesk/contract';
import { ValidationError } from '../../http/errors.ts';
import { createZoneFileReader, readUpload } from './zone-file-reader.ts';

// The reader's thread (decision 061): the file is read there, a file over the time bound is refused and the
// thread replaced, refusals come back as the same 400s.
const reader = createZoneFileReader({ timeoutMs: 3_000 });
afterAll(() => reader.close());

describe('the zone file reader thread', () => {
  it('reads a file on its thread as parseZoneFile does', async () => {
    const z = await reader.parse(Buffer.from('$TTL 300\nwww IN A 192.0.2.1\nbad IN A nope\n'), 'example.com');
    expect(z.records).toMatchObject([{ name: 'www.example.com', content: '192.0.2.1', ttl: 300 }]);
    expect(z.problems).toMatchObject([{ line: 3 }]);
  }, 30_000);

  it('gives back a refusal as a 400 with its field', async () => {
    const err = await reader.parse(Buffer.from(''), 'example.com').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ status: 400, message: ZONE_FILE_TEXT.empty, fields: { file: ZONE_FILE_TEXT.empty } });
  }, 30_000);

  it('refuses a file that takes longer than the bound, and reads the next one on a new thread', async () => {
    const quick = createZoneFileReader({ timeoutMs: 250 });
    try {
      const line = (i: number) => `h${i} 300 IN TXT ${'"abc" '.repeat(64)}\n`;
      const big = Buffer.from(Array.from({ length: 12_000 }, (_, i) => line(i)).join(''));
      const err = await quick.parse(big, 'example.com').catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 400, message: ZONE_FILE_TEXT.tooSlow });
      const z = await quick.parse(Buffer.from('a 300 IN A 192.0.2.9\n'), 'example.com');
      expect(z.records).toHaveLength(1);
    } finally {
      await quick.close();
    }
  }, 30_000);

  it('refuses an upload over the size limit while reading it', async () => {
    async function* chunks() {
      for (let i = 0; i < 10; i++) yield Buffer.alloc(1000, 'a');
    }
    await expect(readUpload(chunks(), 5000)).rejects.toThrow(/larger than/);
  });
});
