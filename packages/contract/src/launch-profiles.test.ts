import { describe, expect, it } from 'vitest';
import { LAUNCH_PROFILE_MESSAGES, LaunchProfileInputSchema } from './launch-profiles.ts';

const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function fieldsOf(input: unknown): Record<string, string> {
  const r = LaunchProfileInputSchema.safeParse(input);
  if (r.success) return {};
  const out: Record<string, string> = {};
  for (const i of r.error.issues) out[i.path.join('.')] ??= i.message;
  return out;
}

describe('LaunchProfileInputSchema', () => {
  it('takes name, server and cloud alone, with the defaults for the rest', () => {
    expect(LaunchProfileInputSchema.parse({ name: ' Basic ', serverId: ID(1), cloudId: ID(2) })).toEqual({
      name: 'Basic',
      brandId: null,
      serverId: ID(1),
      cloudId: ID(2),
      domainRegistratorId: null,
      register: false,
      domainRegistratorContactId: null,
      contentSource: { kind: 'none' },
      dnsTemplateId: null,
      firewallRuleIds: [],
      sslMode: 'strict',
      tls13: true,
      yandexWebmasterAccountId: null,
      googleSearchAccountId: null,
    });
  });

  it('reads the empty strings of a form as no reference', () => {
    const p = LaunchProfileInputSchema.parse({
      name: 'x',
      serverId: ID(1),
      cloudId: ID(2),
      brandId: '',
      dnsTemplateId: '',
      yandexWebmasterAccountId: '',
    });
    expect([p.brandId, p.dnsTemplateId, p.yandexWebmasterAccountId]).toEqual([null, null, null]);
  });

  it('names each missing or bad field', () => {
    expect(
      fieldsOf({
        name: '',
        serverId: '',
        cloudId: 'nope',
        sslMode: 'full-ish',
        tls13: 'maybe',
        firewallRuleIds: [ID(5), ID(5)],
      }),
    ).toEqual({
      name: 'Name is required',
      serverId: LAUNCH_PROFILE_MESSAGES.serverId,
      cloudId: LAUNCH_PROFILE_MESSAGES.cloudId,
      sslMode: LAUNCH_PROFILE_MESSAGES.sslMode,
      tls13: LAUNCH_PROFILE_MESSAGES.tls13,
      firewallRuleIds: LAUNCH_PROFILE_MESSAGES.firewallRulesTwice,
    });
  });

  it('asks for registrator and contact when the launch registers the name', () => {
    expect(fieldsOf({ name: 'x', serverId: ID(1), cloudId: ID(2), register: true })).toEqual({
      domainRegistratorId: LAUNCH_PROFILE_MESSAGES.registrarToRegister,
      domainRegistratorContactId: LAUNCH_PROFILE_MESSAGES.contactToRegister,
    });
  });

  it('checks the content source by its kind', () => {
    const base = { name: 'x', serverId: ID(1), cloudId: ID(2) };
    expect(fieldsOf({ ...base, contentSource: { kind: 'copy' } })).toEqual({
      'contentSource.domainId': LAUNCH_PROFILE_MESSAGES.contentDomainId,
    });
    expect(fieldsOf({ ...base, contentSource: { kind: 'parse', url: 'ftp://x', regionId: ID(3) } })).toEqual({
      'contentSource.url': LAUNCH_PROFILE_MESSAGES.contentUrl,
    });
    expect(fieldsOf({ ...base, contentSource: { kind: 'mirror' } })).toEqual({
      'contentSource.kind': LAUNCH_PROFILE_MESSAGES.contentKind,
    });
    expect(
      LaunchProfileInputSchema.parse({
        ...base,
        contentSource: { kind: 'parse', url: 'https://donor.example/', regionId: ID(3) },
      }).contentSource,
    ).toEqual({ kind: 'parse', url: 'https://donor.example/', regionId: ID(3) });
  });
});
