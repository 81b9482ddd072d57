import { describe, expect, it } from 'vitest';
import { ServerFormSchema } from './servers-api.ts';

const base = {
  IPAddress: '127.0.0.1',
  email: '',
  domainsLimitQty: 0,
  username: 'root',
  sshPort: 22,
  domainsPath: '',
  ispmanagerUri: '',
  ispmanagerUsername: '',
  ispmanagerPassword: '',
  directAdminUri: '',
  directAdminUsername: '',
  directAdminPassword: '',
};

const messages = (values: object) =>
  Object.fromEntries(
    (ServerFormSchema.safeParse({ ...base, ...values }).error?.issues ?? []).map((i) => [i.path.join('.'), i.message]),
  );

describe('ServerFormSchema', () => {
  it('names both address families when the address is wrong', () => {
    expect(messages({ IPAddress: '' })).toEqual({ IPAddress: 'IP Address is required' });
    expect(messages({ IPAddress: 'not an ip' })).toEqual({ IPAddress: 'Must be a valid IPv4 or IPv6 address' });
    expect(messages({ IPAddress: '2001:db8::zz' })).toEqual({ IPAddress: 'Must be a valid IPv4 or IPv6 address' });
  });

  it('keeps the contract rules and output', () => {
    expect(messages({ domainsLimitQty: -1 })).toEqual({
      domainsLimitQty: 'Max Domains must be a whole number, 0 or more',
    });
    expect(messages({ domainsLimitQty: 1.5 })).toEqual({
      domainsLimitQty: 'Max Domains must be a whole number, 0 or more',
    });
    expect(messages({ domainsPath: 'www' })).toEqual({
      domainsPath: 'Domains path must be an absolute path, such as /www',
    });
    expect(messages({ sshPort: 70000 })).toEqual({ sshPort: 'SSH port must be a whole number from 1 to 65535' });
    const out = ServerFormSchema.parse({
      ...base,
      IPAddress: ' ::1 ',
      domainsLimitQty: null,
      ispmanagerPassword: '••••••••',
    });
    expect(out).toMatchObject({ IPAddress: '::1', domainsLimitQty: 0, email: null, domainsPath: null });
    // The mask and '' mean "keep": left out of the request.
    expect(out).not.toHaveProperty('ispmanagerPassword', expect.anything());
    expect(out.directAdminPassword).toBeUndefined();
  });
});
