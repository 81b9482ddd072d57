import { describe, expect, it } from 'vitest';
import { ProxyFormSchema } from './proxies-api.ts';

const base = {
  isHttps: false,
  IPAddress: '',
  httpPort: null,
  username: '',
  password: '',
  regionId: null,
  proxyType: '',
};

describe('ProxyFormSchema', () => {
  it('sends isHttps as the string "true" or "false"', () => {
    expect(ProxyFormSchema.parse({ ...base, isHttps: true }).isHttps).toBe('true');
    expect(ProxyFormSchema.parse(base).isHttps).toBe('false');
  });

  it('has no required fields and turns empty values into null', () => {
    expect(ProxyFormSchema.parse(base)).toMatchObject({
      IPAddress: null,
      httpPort: null,
      username: null,
      regionId: null,
      proxyType: null,
    });
  });

  it('names both address families and the port range', () => {
    const issues = ProxyFormSchema.safeParse({ ...base, IPAddress: '999.1.1.1', httpPort: 70000 }).error?.issues ?? [];
    expect(Object.fromEntries(issues.map((i) => [i.path.join('.'), i.message]))).toEqual({
      IPAddress: 'Must be a valid IPv4 or IPv6 address',
      httpPort: 'Port must be a whole number from 1 to 65535',
    });
    expect(ProxyFormSchema.parse({ ...base, IPAddress: ' 2001:db8::1 ' }).IPAddress).toBe('2001:db8::1');
  });
});
