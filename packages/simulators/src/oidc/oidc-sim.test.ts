import { afterEach, describe, expect, it, vi } from 'vitest';
import { startOidcSim } from './index.ts';

afterEach(() => vi.restoreAllMocks());

describe('the OpenID provider simulator', () => {
  it('starts without oidc-provider warning of a development-only part (the demo prints its log)', async () => {
    const said: string[] = [];
    for (const m of ['warn', 'info', 'log', 'error'] as const) {
      vi.spyOn(console, m).mockImplementation((...args: unknown[]) => void said.push(args.join(' ')));
    }
    const sim = await startOidcSim({
      client: { id: 'c', secret: 'a-client-secret-of-some-length', redirectUris: ['http://127.0.0.1:1/cb'] },
    });
    try {
      // The discovery document makes the provider set up its keys and storage.
      const res = await fetch(`${sim.issuer}/.well-known/openid-configuration`);
      expect(res.status).toBe(200);
      expect(said.filter((s) => /development-only|oidc-provider WARNING/.test(s))).toEqual([]);
    } finally {
      await sim.close();
    }
  });
});
