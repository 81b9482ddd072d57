import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BrandSchema, DomainSchema, UserSchema, listOf } from '@fleetdesk/contract';
import { compileResponse, deepFreeze, serializerCompiler } from './serializer.ts';

const id = (n: number) => `8f0b1e1e-1111-4111-8111-${String(n).padStart(12, '0')}`;
const domain = {
  _id: id(1),
  domainNo: 1,
  domainName: 'xn--bcher-kva.example',
  domainNameUnicode: 'bücher.example',
  domainNameWarning: null,
  status: 'active',
  serverId: id(2),
  server: { _id: id(2), IPAddress: '10.0.0.1', email: null },
  brandId: id(3),
  brand: { _id: id(3), name: 'A "quoted" \\ name\u2028' },
  cloudId: null,
  cloud: null,
  cloudZoneId: 'z1',
  cloudRulesetId: null,
  parserEnabled: true,
  isSinglePage: false,
  parserURL: null,
  parserProxyRegionId: null,
  parserProxyRegion: null,
  redirectDomainName: null,
  redirectDomainNameUnicode: null,
  isRestricted: false,
  domainRegistratorId: null,
  domainRegistrator: null,
  domainRegistratorExpirationDate: '2026-01-01',
  yandexWebmasterAccountId: null,
  cloudFirewallRules: [{ ruleId: id(4), ruleName: 'r', action: 'block', priority: 1 }],
  parsingStartDate: null,
  parsingEndDate: null,
  parsingProgress: { done: 3, pages: [1, 2], nested: { ok: true } },
  healthState: null,
  healthProblems: 0,
  healthCounts: { failing: 0, warning: 1, unknown: 0 },
};

describe('compiled response serialisation', () => {
  it('writes exactly what zod and JSON.stringify write, and drops fields the schema does not name', () => {
    const schema = listOf(DomainSchema);
    const write = compileResponse(schema)!;
    expect(write).not.toBeNull();
    const data = { data: { items: [domain, { ...domain, _id: id(9), server: null, serverId: null }], itemsCount: 2 } };
    expect(write(data)).toBe(JSON.stringify(schema.parse(data)));
    const leaky = { data: { items: [{ ...domain, passwordHash: 'secret', apiKey: 'k' }], itemsCount: 1 } };
    expect(write(leaky)).not.toMatch(/secret|apiKey|passwordHash/);
    expect(JSON.parse(write(leaky))).toEqual(schema.parse(leaky));
  });

  it('picks the slim branch of a picker union, and keeps a field named like a JSON Schema keyword', () => {
    const slim = BrandSchema.pick({ _id: true, name: true });
    const write = compileResponse(z.union([listOf(BrandSchema), listOf(slim)]))!;
    const full = {
      data: {
        items: [{ _id: id(1), brandNo: 7, name: 'B', trafficFallPercent: null, indexNow: false }],
        itemsCount: 1,
      },
    };
    expect(JSON.parse(write(full))).toEqual(full);
    const picked = { data: { items: [{ _id: id(1), name: 'B' }], itemsCount: 1 } };
    expect(JSON.parse(write(picked))).toEqual(picked);
    const odd = z.object({ format: z.string(), pattern: z.number().nullable(), minimum: z.boolean() });
    expect(compileResponse(odd)!({ format: 'csv', pattern: null, minimum: true })).toBe(
      '{"format":"csv","pattern":null,"minimum":true}',
    );
  });

  it('keeps zod for a schema with a transform, and for data the writer cannot place', () => {
    const transformed = z.object({ n: z.number().transform((n) => n * 2) });
    expect(compileResponse(transformed)).toBeNull();
    const run = (schema: z.ZodType, data: unknown) =>
      serializerCompiler({ schema, method: 'GET', url: '/x' } as Parameters<typeof serializerCompiler>[0])(data);
    expect(() => run(UserSchema, { nonsense: true })).toThrow();
  });

  it('writes a frozen answer once per route, and anything else every time', () => {
    const schema = listOf(DomainSchema);
    const writer = () =>
      serializerCompiler({ schema, method: 'GET', url: '/x' } as Parameters<typeof serializerCompiler>[0]);
    let reads = 0;
    const page = { itemsCount: 1 } as { itemsCount: number; items: unknown[] };
    Object.defineProperty(page, 'items', { enumerable: true, get: () => (reads++, [domain]) });
    const frozen = deepFreeze(page);
    const write = writer();
    const first = write({ data: frozen });
    expect(JSON.parse(first)).toEqual({ data: { items: [domain], itemsCount: 1 } });
    const once = reads;
    expect(once).toBeGreaterThan(0);
    expect(write({ data: frozen })).toBe(first);
    expect(reads).toBe(once);
    // Another route writes it with its own schema; an envelope with more than data is written anew.
    expect(writer()({ data: frozen })).toBe(first);
    expect(reads).toBeGreaterThan(once);
    const before = reads;
    write({ data: frozen, extra: true });
    expect(reads).toBeGreaterThan(before);
    // An answer that is not frozen may change between two answers: written every time.
    const open = { items: [{ ...domain }], itemsCount: 1 };
    expect(JSON.parse(write({ data: open })).data.items[0].status).toBe('active');
    open.items[0]!.status = 'inactive';
    expect(JSON.parse(write({ data: open })).data.items[0].status).toBe('inactive');
  });

  it('freezes an answer all the way down', () => {
    const page = deepFreeze({ items: [{ ...domain, brand: { ...domain.brand } }], itemsCount: 1 });
    expect(Object.isFrozen(page.items)).toBe(true);
    expect(Object.isFrozen(page.items[0]!.brand)).toBe(true);
    expect(Object.isFrozen(page.items[0]!.parsingProgress.nested)).toBe(true);
    expect(() => {
      (page.items[0] as { status: string }).status = 'inactive';
    }).toThrow(TypeError);
  });
});
