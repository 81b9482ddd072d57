import { describe, expect, it } from 'vitest';
import { CLOUDFLARE_CODES, NAMECHEAP_CODES, explainProviderReason } from './provider-codes.ts';

describe('explainProviderReason', () => {
  it("says what a Cloudflare code means and keeps Cloudflare's words in the detail", () => {
    const text = 'Cloudflare: 7003 Could not route to /client/v4/zones/abc, perhaps your object identifier is invalid?';
    expect(explainProviderReason(text)).toEqual({
      reason: 'The zone no longer exists at Cloudflare: link the domain to its new zone or create one',
      detail: text,
    });
    expect(explainProviderReason('Cloudflare: 81057 Record already exists.')?.reason).toMatch(/already exists/);
    expect(
      explainProviderReason('Cloudflare: permission denied (9109 Unauthorized to access requested resource)')?.reason,
    ).toMatch(/API token/);
    expect(explainProviderReason('Cloudflare: 1061 example.com already exists')?.reason).toMatch(/link the domain/);
  });

  it('says what a Namecheap number means', () => {
    expect(explainProviderReason('Namecheap 2019166: Domain not found')).toEqual({
      reason: "Namecheap does not know this domain: it is not registered there; check the domain's registrator",
      detail: 'Namecheap 2019166: Domain not found',
    });
    expect(explainProviderReason('Namecheap 1011150: Invalid request IP')?.reason).toMatch(/whitelist/);
    expect(explainProviderReason('Namecheap 500000: Too many requests')?.reason).toMatch(/tries again later/);
  });

  it('leaves texts without a known code alone', () => {
    expect(explainProviderReason(null)).toBeNull();
    expect(explainProviderReason('Cloudflare: timed out after 10000 ms through each of 2 routes')).toBeNull();
    expect(explainProviderReason('Cloudflare: 99999 Something new')).toBeNull();
    expect(explainProviderReason('Namecheap 1234567: Unknown')).toBeNull();
    expect(explainProviderReason('The domain has no cloud')).toBeNull();
  });

  it('writes every sentence as meaning, then what to do, without the code', () => {
    for (const [code, s] of [...Object.entries(CLOUDFLARE_CODES), ...Object.entries(NAMECHEAP_CODES)]) {
      expect(s, code).toMatch(/^[A-Z][^:]+: \S/);
      expect(s, code).not.toContain(code);
    }
  });
});
