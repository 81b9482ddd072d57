/**
 * Test support for contract.test.ts: checks recorded Cloudflare exchanges against the official OpenAPI 3.0 file.
 *
 * The schema is loaded once and handed to ajv whole (as two prepared copies: one for requests, one for responses),
 * so `$ref`s resolve inside it. OpenAPI 3.0 differs from JSON Schema in a few ways that are translated here:
 * `nullable`, boolean `exclusiveMinimum`/`exclusiveMaximum`, `readOnly` properties (required only in responses,
 * refused in requests: CAA's `content` is read-only and Cloudflare refuses it), and formats ajv does not know
 * (dropped). `discriminator` is dropped; `oneOf` still decides.
 *
 * The Cloudflare simulator validates every request with `validateRequest` (packages/simulators/src/cloudflare/
 * openapi/request-check.ts); contract.test.ts checks whole exchanges with `validate`.
 *
 * Where the 2024-08 schema is wrong about what Cloudflare does, the workaround is listed in SCHEMA_GAPS, and
 * contract.test.ts checks each gap is still there, so a newer schema file makes stale workarounds fail loudly.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

type Json = any;

export interface Exchange {
  method: string;
  /** Path below the base URL, without the query, e.g. /zones/abc/dns_records. */
  path: string;
  query: [string, string][];
  auth: 'token' | 'key' | 'none';
  requestBody: unknown;
  status: number;
  responseBody: unknown;
}

export interface ValidationReport {
  /** operationId, or a synthetic id for calls the schema does not describe. */
  operation: string;
  problems: string[];
  /** The SCHEMA_GAPS workarounds this exchange needed. */
  gaps: SchemaGap[];
}

export const SCHEMA_GAPS = {
  tokenSecurity:
    'GET /accounts, the DNS record operations and POST purge_cache declare only api_email+api_key, yet Cloudflare ' +
    'takes API tokens there as everywhere (cloudflare.md §1: two ways to authenticate); Bearer calls to them pass.',
  unsatisfiableFailure:
    'Several 4XX responses are allOf(success envelope with success: enum [true], failure envelope with success: ' +
    'enum [false]), which nothing can satisfy; error answers are checked against the failure envelope alone.',
  settingBodyId:
    'PATCH /zones/{zone_id}/settings/{setting_id} reuses the setting object (a oneOf over every setting) as its ' +
    'request body; a body without id matches the catch-all ssl_recommender branch whatever its value, so the body ' +
    "is checked as {id: setting_id, ...body}, which selects the setting's own branch and its allowed values.",
  dnsRecordBodyId:
    'The DNS record create/overwrite/patch request bodies reuse the response record, whose top-level required ' +
    'list (id, content, proxiable, created_on, modified_on) describes answers; for requests each type variant ' +
    'decides what is required (content for A, data for CAA, …).',
  dnsPatchPartial:
    'PATCH /zones/{zone_id}/dns_records/{id} is a partial update but reuses the full record schema; the body is ' +
    "checked against its record type's variant with nothing required (type taken from the answer when not sent).",
  dnsBatchMissing:
    'POST /zones/{zone_id}/dns_records/batch is newer than the schema; it is checked against the record schemas ' +
    'of the single-record calls (cloudflare.md §11).',
  zoneFieldsMissing:
    'zones_zone lacks status, paused, type and plan; those are checked against the SDK types instead (cloudflare.md §10).',
  ruleActionPattern:
    "rulesets_RuleAction has pattern ^[a-z]+$, which rejects the schema's own actions with an underscore " +
    '(managed_challenge, js_challenge, …); the pattern is widened to ^[a-z_]+$.',
  messageFieldsMissing:
    'Error messages carry error_chain (observed, cloudflare.md §2) and source.pointer (rulesets); the per-product ' +
    'message schemas lack them, so strict mode allows error_chain, source and documentation_url on every message.',
  ruleFieldsMissing:
    'cloudflare.md §7 lists ratelimit and exposed_credential_check on rules; the 2024 rule schemas lack them, so ' +
    'strict mode allows them (their contents unchecked) on every rule.',
  totalPagesMissing:
    'Real list answers carry result_info.total_pages (observed, cloudflare.md §2); the schemas lack it, so strict ' +
    'mode allows it.',
  recordSettingsMissing:
    'cloudflare.md §6 lists settings (e.g. ipv4_only, flatten_cname) on DNS records; the 2024 record schemas lack ' +
    'it, so strict mode allows it (its contents unchecked).',
  deleteRecordEnvelope:
    'The DELETE dns_records/{id} answer is declared as {result: {id}} alone, yet it is the v4 envelope like every ' +
    'answer (cloudflare.md §2); strict mode allows success, errors and messages there.',
  redirectTargetOneOf:
    'rulesets_RedirectRule target_url is oneOf({value}, {expression}) with neither property required, so a valid ' +
    'target matches both branches; each branch is given its property as required.',
} as const;

export type SchemaGap = keyof typeof SCHEMA_GAPS;

/** The operations SCHEMA_GAPS.tokenSecurity covers. */
export const TOKEN_SECURITY_GAP = /^(accounts-list-accounts|dns-records-for-a-zone-.*|zone-purge)$/;

const MAP_KEYS = new Set([
  'properties',
  'patternProperties',
  'definitions',
  'schemas',
  'paths',
  'responses',
  'requestBodies',
  'content',
  'headers',
  'securitySchemes',
  'links',
  'callbacks',
  'mapping',
]);

export function pointer(parts: (string | number)[]): string {
  return `#/${parts.map((p) => encodeURIComponent(String(p).replace(/~/g, '~0').replace(/\//g, '~1'))).join('/')}`;
}

function resolveRef(doc: Json, ref: string): Json {
  if (!ref.startsWith('#/')) throw new Error(`external $ref not supported: ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((node: Json, key) => node?.[key], doc);
}

/** Follows $ref chains, returning the final node and the JSON pointer parts of where it lives. */
function deref(doc: Json, node: Json, parts: (string | number)[]): { node: Json; parts: (string | number)[] } {
  let n = node;
  let p = parts;
  for (let i = 0; i < 20 && n && typeof n.$ref === 'string'; i++) {
    p = (n.$ref as string)
      .slice(2)
      .split('/')
      .map((x) => x.replace(/~1/g, '/').replace(/~0/g, '~'));
    n = resolveRef(doc, n.$ref);
  }
  return { node: n, parts: p };
}

function isReadOnly(doc: Json, schema: Json, depth = 0): boolean {
  if (!schema || typeof schema !== 'object' || depth > 8) return false;
  if (schema.readOnly === true) return true;
  if (typeof schema.$ref === 'string') return isReadOnly(doc, resolveRef(doc, schema.$ref), depth + 1);
  return Array.isArray(schema.allOf) && schema.allOf.some((s: Json) => isReadOnly(doc, s, depth + 1));
}

/** Every definition of property `name` reachable from `schema` through $ref and the combinators. */
function propertyDefs(doc: Json, schema: Json, name: string, depth = 0): Json[] {
  if (!schema || typeof schema !== 'object' || depth > 8) return [];
  if (typeof schema.$ref === 'string') return propertyDefs(doc, resolveRef(doc, schema.$ref), name, depth + 1);
  const out: Json[] = [];
  if (schema.properties && name in schema.properties) out.push(schema.properties[name]);
  for (const key of ['allOf', 'oneOf', 'anyOf']) {
    if (Array.isArray(schema[key])) for (const s of schema[key]) out.push(...propertyDefs(doc, s, name, depth + 1));
  }
  return out;
}

/** A deep copy of the document translated from OpenAPI 3.0 to what ajv (draft-07) understands. */
function prepare(doc: Json, mode: 'request' | 'response', knownFormats: Set<string>): Json {
  const walk = (node: Json, isMap: boolean): Json => {
    if (Array.isArray(node)) return node.map((n) => walk(n, false));
    if (!node || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) {
      if (!isMap && (k === 'example' || k === 'examples' || k === 'discriminator' || k.startsWith('x-'))) continue;
      out[k] = walk(v, !isMap && MAP_KEYS.has(k));
    }
    if (isMap) return out;
    if (typeof out.format === 'string' && !knownFormats.has(out.format)) delete out.format;
    for (const [ex, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (typeof out[ex] === 'boolean') {
        if (out[ex] && typeof out[bound] === 'number') {
          out[ex] = out[bound];
          delete out[bound];
        } else delete out[ex];
      }
    }
    // Read-only properties may appear in answers only; a request carrying one does not validate.
    if (mode === 'request' && out.properties && typeof out.properties === 'object') {
      for (const [name, def] of Object.entries<Json>(node.properties)) {
        if (isReadOnly(doc, def)) out.properties[name] = false;
      }
    }
    if (mode === 'request' && Array.isArray(out.required)) {
      out.required = out.required.filter((name: string) => {
        const defs = propertyDefs(doc, node, name);
        return defs.length === 0 || !defs.every((d) => isReadOnly(doc, d));
      });
    }
    if (typeof out.nullable === 'boolean') {
      const nullable = out.nullable;
      delete out.nullable;
      if (nullable) {
        if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
        if (typeof out.type === 'string') out.type = [out.type, 'null'];
        else if (out.type === undefined) return { anyOf: [{ type: 'null' }, out] };
      }
    }
    return out;
  };
  const prepared = walk(doc, false);
  const schemas = prepared.components.schemas;

  // SCHEMA_GAPS.dnsRecordBodyId: the top-level required list is the answer's; each variant has its own.
  if (mode === 'request') {
    const rec = schemas['dns-records_dns-record'];
    if (rec && Array.isArray(rec.required)) delete rec.required;
  }
  // SCHEMA_GAPS.ruleActionPattern
  if (schemas['rulesets_RuleAction']?.pattern === '^[a-z]+$') schemas['rulesets_RuleAction'].pattern = '^[a-z_]+$';
  // SCHEMA_GAPS.redirectTargetOneOf
  const redirect = schemas['rulesets_RedirectRule'];
  const target = redirect?.allOf?.[1]?.properties?.action_parameters?.properties?.from_value?.properties?.target_url;
  if (Array.isArray(target?.oneOf)) {
    for (const branch of target.oneOf) {
      const keys = Object.keys(branch.properties ?? {});
      if (keys.length === 1 && !branch.required) branch.required = keys;
    }
  }
  // SCHEMA_GAPS.dnsPatchPartial: a variant of each record type with nothing required.
  if (mode === 'request') {
    for (const [name, schema] of Object.entries<Json>(schemas)) {
      const m = /^dns-records_([A-Z]+)Record$/.exec(name);
      if (!m) continue;
      const copy = structuredClone(schema);
      delete copy.required;
      for (const part of copy.allOf ?? []) delete part.required;
      schemas[`partial_dns-records_${m[1]}Record`] = copy;
    }
  }
  // SCHEMA_GAPS.zoneFieldsMissing: the fields the TS SDK (v7.1.0) has and the 2024 schema lacks.
  schemas['fleetdesk_zone_supplement'] = {
    type: 'object',
    required: ['status', 'paused', 'type'],
    properties: {
      status: { enum: ['initializing', 'pending', 'active', 'moved'] },
      paused: { type: 'boolean' },
      type: { enum: ['full', 'partial', 'secondary', 'internal'] },
      plan: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          price: { type: 'number' },
          currency: { type: 'string' },
          frequency: { type: 'string' },
          is_subscribed: { type: 'boolean' },
          can_subscribe: { type: 'boolean' },
          legacy_id: { type: 'string' },
          legacy_discount: { type: 'boolean' },
          externally_managed: { type: 'boolean' },
        },
      },
      permissions: { type: 'array', items: { type: 'string' } },
    },
  };
  // SCHEMA_GAPS.dnsBatchMissing: the batch call in terms of the single-record schemas.
  schemas['fleetdesk_dns_batch_request'] = {
    type: 'object',
    additionalProperties: false,
    properties: {
      deletes: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id'],
          additionalProperties: false,
          properties: { id: { $ref: '#/components/schemas/dns-records_identifier' } },
        },
      },
      // patches are checked one by one against their type's partial variant.
      patches: { type: 'array', items: { type: 'object', required: ['id'] } },
      // puts and posts are checked one by one against their type's record schema.
      puts: { type: 'array', items: { type: 'object', required: ['id'] } },
      posts: { type: 'array', items: { type: 'object' } },
    },
  };
  schemas['fleetdesk_dns_batch_response'] = {
    allOf: [
      { $ref: '#/components/schemas/dns-records_api-response-common' },
      {
        type: 'object',
        required: ['result'],
        properties: {
          result: {
            type: 'object',
            properties: Object.fromEntries(
              ['deletes', 'patches', 'puts', 'posts'].map((k) => [
                k,
                { type: 'array', items: { $ref: '#/components/schemas/dns-records_dns-record' } },
              ]),
            ),
          },
        },
      },
    ],
  };
  // SCHEMA_GAPS.zoneFieldsMissing also for strict mode: the SDK's zone fields are known properties.
  if (schemas.zones_zone?.properties) {
    Object.assign(schemas.zones_zone.properties, schemas['fleetdesk_zone_supplement'].properties);
  }
  // SCHEMA_GAPS.messageFieldsMissing
  for (const [name, schema] of Object.entries<Json>(schemas)) {
    if (!/_messages$/.test(name) || schema?.type !== 'array' || !schema.items?.properties) continue;
    schema.items.properties.error_chain ??= { type: 'array', items: { $ref: `#/components/schemas/${name}/items` } };
    schema.items.properties.source ??= { type: 'object', properties: { pointer: { type: 'string' } } };
    schema.items.properties.documentation_url ??= { type: 'string' };
  }
  // SCHEMA_GAPS.recordSettingsMissing
  if (schemas['dns-records_base']?.properties) {
    schemas['dns-records_base'].properties.settings ??= { type: 'object', additionalProperties: true };
  }
  // SCHEMA_GAPS.deleteRecordEnvelope
  const deleted =
    prepared.paths['/zones/{zone_id}/dns_records/{dns_record_id}']?.delete?.responses?.['200']?.content?.[
      'application/json'
    ]?.schema;
  if (deleted?.properties && !deleted.properties.success) {
    Object.assign(deleted.properties, {
      success: { type: 'boolean' },
      errors: { $ref: '#/components/schemas/dns-records_messages' },
      messages: { $ref: '#/components/schemas/dns-records_messages' },
    });
  }
  // SCHEMA_GAPS.ruleFieldsMissing
  if (schemas.rulesets_Rule?.properties) {
    schemas.rulesets_Rule.properties.ratelimit ??= { type: 'object', additionalProperties: true };
    schemas.rulesets_Rule.properties.exposed_credential_check ??= { type: 'object', additionalProperties: true };
  }
  // Strict mode: what cloudflare.md marks required is required, beyond what the schema says.
  const requireAlso = (schema: Json, names: string[]) => {
    if (!schema || typeof schema !== 'object') return;
    schema.required = [...new Set([...(schema.required ?? []), ...names])];
  };
  for (const [name, schema] of Object.entries<Json>(schemas)) {
    // Pagination: page, per_page, count and total_count (cloudflare.md §2).
    if (/_result_info$/.test(name) && schema?.properties) {
      const keys = ['page', 'per_page', 'count', 'total_count'];
      if (keys.every((k) => k in schema.properties)) {
        requireAlso(schema, keys);
        // SCHEMA_GAPS.totalPagesMissing
        schema.properties.total_pages ??= { type: 'number' };
      }
    }
    // DNS records as answered: the fields of cloudflare.md §6 that every record has.
    const rec = /^dns-records_([A-Z]+)Record$/.exec(name);
    if (rec && mode === 'response') {
      const always = ['id', 'type', 'name', 'ttl', 'proxied', 'proxiable', 'created_on', 'modified_on'];
      requireAlso(
        schema,
        ['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'NS', 'PTR'].includes(rec[1] ?? '') ? [...always, 'content'] : always,
      );
    }
  }
  // Rules: action and expression are what every rule needs (cloudflare.md §7).
  if (mode === 'request') requireAlso(schemas.rulesets_Rule, ['action', 'expression']);
  const batchResult = schemas['fleetdesk_dns_batch_response'].allOf[1].properties.result;
  batchResult.required = ['deletes', 'patches', 'puts', 'posts'];
  batchResult.additionalProperties = false;
  return prepared;
}

/**
 * Strict mode: the OpenAPI file lets any object carry extra properties, so a renamed field (ttl → time_to_live)
 * would pass. Here every property of the data must be declared by the schema at that place, through $ref and
 * any of allOf/oneOf/anyOf (their union: the branch ajv chose is not known here). Objects whose schema declares no
 * property at all (free-form maps) and additionalProperties schemas are left open.
 */
function unknownProperties(doc: Json, schema: Json, data: unknown, where: string, out: string[], depth = 0): void {
  if (depth > 40 || out.length >= 20 || data === null || typeof data !== 'object') return;
  const props = new Map<string, Json[]>();
  const items: Json[] = [];
  const additional: Json[] = [];
  let open = false;
  const collect = (node: Json, d: number) => {
    if (!node || typeof node !== 'object' || d > 12) return;
    if (typeof node.$ref === 'string') return collect(resolveRef(doc, node.$ref), d + 1);
    for (const [k, v] of Object.entries<Json>(node.properties ?? {})) props.set(k, [...(props.get(k) ?? []), v]);
    if (node.items) items.push(node.items);
    if (node.additionalProperties === true) open = true;
    else if (node.additionalProperties && typeof node.additionalProperties === 'object')
      additional.push(node.additionalProperties);
    if (node.patternProperties) open = true;
    for (const key of ['allOf', 'oneOf', 'anyOf'])
      if (Array.isArray(node[key])) for (const n of node[key]) collect(n, d + 1);
  };
  collect(schema, 0);
  if (Array.isArray(data)) {
    if (items.length)
      data.forEach((v, i) => unknownProperties(doc, { anyOf: items }, v, `${where}/${i}`, out, depth + 1));
    return;
  }
  if (props.size === 0 && additional.length === 0) return;
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    const defs = props.get(k);
    if (defs) unknownProperties(doc, { anyOf: defs }, v, `${where}/${k}`, out, depth + 1);
    else if (additional.length) unknownProperties(doc, { anyOf: additional }, v, `${where}/${k}`, out, depth + 1);
    else if (!open) out.push(`${where}: unknown property '${k}' (strict mode)`);
  }
}

interface MatchedOperation {
  template: string;
  method: string;
  op: Json;
  pathItem: Json;
  params: Record<string, string>;
}

function formatErrors(errors: ErrorObject[] | null | undefined, where: string): string[] {
  if (!errors) return [];
  // oneOf failures list every branch; the most specific messages are the deepest ones.
  const sorted = [...errors].sort((a, b) => b.instancePath.length - a.instancePath.length);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const e of sorted) {
    // A `false` schema stands for a read-only property (see prepare).
    const message = e.keyword === 'false schema' ? 'is read-only and cannot be sent' : (e.message ?? e.keyword);
    const text = `${where}${e.instancePath}: ${message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`;
    if (!seen.has(text)) {
      seen.add(text);
      out.push(text);
    }
    if (out.length >= 8) break;
  }
  return out;
}

export function createContractValidator(doc: Json) {
  const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  const knownFormats = new Set(Object.keys(ajv.formats));
  const REQ = 'cf-request.json';
  const RES = 'cf-response.json';
  const reqDoc = prepare(doc, 'request', knownFormats);
  ajv.addSchema({ ...reqDoc, $id: REQ });
  // The simulator checks requests only; the answers' copy is prepared on first use.
  let resDocCache: Json;
  const resDoc = (): Json => {
    if (!resDocCache) {
      resDocCache = prepare(doc, 'response', knownFormats);
      ajv.addSchema({ ...resDocCache, $id: RES });
    }
    return resDocCache;
  };

  const compiled = new Map<string, ValidateFunction>();
  const validatorAt = (docId: string, parts: (string | number)[]): ValidateFunction => {
    if (docId === RES) resDoc();
    const ref = `${docId}${pointer(parts)}`;
    let v = compiled.get(ref);
    if (!v) {
      v = ajv.compile({ $ref: ref });
      compiled.set(ref, v);
    }
    return v;
  };
  const check = (docId: string, parts: (string | number)[], data: unknown, where: string, strict = true): string[] => {
    const v = validatorAt(docId, parts);
    const problems = v(data) ? [] : formatErrors(v.errors, where);
    if (!strict) return problems;
    const prepared = docId === REQ ? reqDoc : resDoc();
    const schema = parts.reduce((n: Json, k) => n?.[k], prepared);
    unknownProperties(prepared, schema, data, where, problems);
    return problems;
  };

  const templates = Object.keys(doc.paths).map((template) => {
    const names: string[] = [];
    const re = new RegExp(
      `^${template
        .split('/')
        .map((seg) => {
          const m = /^\{([^}]+)\}$/.exec(seg);
          if (!m) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(m[1] ?? '');
          return '([^/]+)';
        })
        .join('/')}$`,
    );
    return { template, re, names, literals: template.split('/').filter((s) => s && !s.startsWith('{')).length };
  });

  const match = (method: string, path: string): MatchedOperation | undefined => {
    const hits = templates
      .map((t) => ({ t, m: t.re.exec(path) }))
      .filter((h) => h.m && doc.paths[h.t.template][method.toLowerCase()])
      .sort((a, b) => b.t.literals - a.t.literals);
    const hit = hits[0];
    if (!hit?.m) return undefined;
    const params: Record<string, string> = {};
    hit.t.names.forEach((n, i) => (params[n] = decodeURIComponent(hit.m?.[i + 1] ?? '')));
    const pathItem = doc.paths[hit.t.template];
    return {
      template: hit.t.template,
      method: method.toLowerCase(),
      op: pathItem[method.toLowerCase()],
      pathItem,
      params,
    };
  };

  const coerce = (schema: Json, raw: string): unknown => {
    const type = schema?.type;
    if (type === 'number' || type === 'integer') return raw.trim() === '' ? raw : Number(raw);
    if (type === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : raw;
    return raw;
  };

  const checkParameters = (m: MatchedOperation, ex: Exchange): string[] => {
    const problems: string[] = [];
    const base = ['paths', m.template];
    const declared: { param: Json; schemaParts: (string | number)[] }[] = [];
    for (const [list, parts] of [
      [m.pathItem.parameters, [...base, 'parameters']],
      [m.op.parameters, [...base, m.method, 'parameters']],
    ] as [Json[] | undefined, (string | number)[]][]) {
      (list ?? []).forEach((p, i) => {
        const r = deref(doc, p, [...parts, i]);
        declared.push({ param: r.node, schemaParts: [...r.parts, 'schema'] });
      });
    }
    const find = (where: string, name: string) => declared.find((d) => d.param.in === where && d.param.name === name);
    for (const [name, value] of Object.entries(m.params)) {
      const d = find('path', name);
      if (!d) problems.push(`path parameter ${name} is not declared`);
      else {
        const schema = deref(doc, d.param.schema, d.schemaParts).node;
        problems.push(...check(REQ, d.schemaParts, coerce(schema, value), `path ${name}`));
      }
    }
    for (const [name, value] of ex.query) {
      const d = find('query', name);
      if (!d) {
        problems.push(`query parameter ${name} is not in the schema`);
        continue;
      }
      const schema = deref(doc, d.param.schema, d.schemaParts).node;
      problems.push(...check(REQ, d.schemaParts, coerce(schema, value), `query ${name}=${value}`));
    }
    for (const d of declared) {
      if (d.param.in === 'query' && d.param.required && !ex.query.some(([k]) => k === d.param.name)) {
        problems.push(`required query parameter ${d.param.name} is missing`);
      }
    }
    return problems;
  };

  const checkSecurity = (m: MatchedOperation, ex: Exchange, gaps: Set<SchemaGap>): string[] => {
    const requirements: Json[] = m.op.security ?? doc.security ?? [];
    const wanted = ex.auth === 'token' ? ['api_token'] : ex.auth === 'key' ? ['api_email', 'api_key'] : [];
    const allowed = requirements.some((r) => {
      const keys = Object.keys(r).sort();
      return keys.length === wanted.length && wanted.every((w) => keys.includes(w));
    });
    if (allowed) return [];
    if (ex.auth === 'token' && TOKEN_SECURITY_GAP.test(m.op.operationId)) {
      gaps.add('tokenSecurity');
      return [];
    }
    return [`security: ${ex.auth} authentication is not allowed for ${m.op.operationId}`];
  };

  const responseSchemaParts = (m: MatchedOperation, status: number): (string | number)[] | undefined => {
    const responses = m.op.responses ?? {};
    const keys = [String(status), `${String(status)[0]}XX`, `${String(status)[0]}xx`, 'default'];
    const key = keys.find((k) => k in responses);
    if (!key) return undefined;
    const r = deref(doc, responses[key], ['paths', m.template, m.method, 'responses', key]);
    if (!r.node?.content?.['application/json']?.schema) return undefined;
    return [...r.parts, 'content', 'application/json', 'schema'];
  };

  /** SCHEMA_GAPS.unsatisfiableFailure: picks the failure envelope out of an allOf(success, failure). */
  const failureOnly = (parts: (string | number)[]): (string | number)[] | undefined => {
    const schema = parts.reduce((n: Json, k) => n?.[k], doc);
    const members: Json[] = Array.isArray(schema?.allOf) ? schema.allOf : [];
    const failure = members.find((s) => typeof s.$ref === 'string' && s.$ref.endsWith('api-response-common-failure'));
    if (!failure || members.length < 2) return undefined;
    return resolveRefParts(failure.$ref);
  };

  const resolveRefParts = (ref: string): string[] =>
    ref
      .slice(2)
      .split('/')
      .map((x) => x.replace(/~1/g, '/').replace(/~0/g, '~'));

  const checkResponse = (
    m: MatchedOperation | undefined,
    ex: Exchange,
    gaps: Set<SchemaGap>,
    fallback: { success: (string | number)[]; failure: (string | number)[] },
  ): string[] => {
    const ok = ex.status >= 200 && ex.status < 300;
    let parts = m ? responseSchemaParts(m, ex.status) : ok ? fallback.success : fallback.failure;
    if (!parts) return [`no response schema for HTTP ${ex.status}`];
    if (!ok && m) {
      const alone = failureOnly(parts);
      if (alone) {
        gaps.add('unsatisfiableFailure');
        parts = alone;
      }
    }
    const problems = check(RES, parts, ex.responseBody, 'response');
    if (ok && m && ['zones-get', 'zones-post', 'zones-0-get'].includes(m.op.operationId)) {
      gaps.add('zoneFieldsMissing');
      const body = ex.responseBody as { result?: unknown };
      const zones = Array.isArray(body.result) ? body.result : [body.result];
      zones.forEach((z, i) =>
        // A partial schema (the fields the file lacks): the strict check ran on the whole zone above.
        problems.push(
          ...check(RES, ['components', 'schemas', 'fleetdesk_zone_supplement'], z, `response zone ${i}`, false),
        ),
      );
    }
    return problems;
  };

  // DNS record id → type, from every answer seen, so a patch that failed (no record in its answer) can be typed.
  const recordTypes = new Map<string, string>();
  const rememberRecords = (ex: Exchange): void => {
    if (!/\/dns_records/.test(ex.path)) return;
    const result = (ex.responseBody as { result?: unknown } | undefined)?.result;
    const lists = Array.isArray(result)
      ? [result]
      : result && typeof result === 'object'
        ? [[result], ...['deletes', 'patches', 'puts', 'posts'].map((k) => (result as Json)[k] ?? [])]
        : [];
    for (const list of lists) {
      for (const r of list as Json[]) {
        if (typeof r?.id === 'string' && typeof r?.type === 'string') recordTypes.set(r.id, r.type);
      }
    }
  };

  // The simulator knows its records' types; the contract test learns them from earlier answers.
  let typeLookup: (id: string) => string | undefined = (id) => recordTypes.get(id);
  // Strict mode (unknown properties) for whole exchanges; the simulator checks what the document itself refuses.
  let strictBodies = true;

  const recordTypeOf = (ex: Exchange, id: string | undefined): string | undefined => {
    const body = ex.requestBody as { type?: unknown } | undefined;
    if (typeof body?.type === 'string') return body.type;
    const result = (ex.responseBody as { result?: { type?: unknown } } | undefined)?.result;
    if (typeof result?.type === 'string') return result.type;
    return id ? typeLookup(id) : undefined;
  };

  const checkPartialRecord = (type: string | undefined, body: unknown, where: string): string[] => {
    const name = `partial_dns-records_${type ?? ''}Record`;
    if (!type || !reqDoc.components.schemas[name]) return [`${where}: cannot tell the record type of a patch`];
    return check(REQ, ['components', 'schemas', name], { type, ...(body as object) }, where, strictBodies);
  };

  const checkRequestBody = (m: MatchedOperation, ex: Exchange, gaps: Set<SchemaGap>): string[] => {
    const rb = m.op.requestBody;
    if (!rb) return ex.requestBody === undefined ? [] : ['a body was sent where the schema declares none'];
    const r = deref(doc, rb, ['paths', m.template, m.method, 'requestBody']);
    const hasSchema = !!r.node?.content?.['application/json']?.schema;
    if (ex.requestBody === undefined) {
      // DELETE declares an optional empty JSON body; nothing to check when none is sent.
      return r.node?.required && hasSchema ? ['the schema requires a request body'] : [];
    }
    if (!hasSchema) return [];
    const parts = [...r.parts, 'content', 'application/json', 'schema'];
    const opId: string = m.op.operationId;
    if (opId === 'zone-settings-edit-single-setting') {
      gaps.add('settingBodyId');
      return check(REQ, parts, { id: m.params.setting_id, ...(ex.requestBody as object) }, 'request', strictBodies);
    }
    if (opId === 'dns-records-for-a-zone-patch-dns-record') {
      gaps.add('dnsPatchPartial');
      return checkPartialRecord(recordTypeOf(ex, m.params.dns_record_id), ex.requestBody, 'request');
    }
    if (opId === 'dns-records-for-a-zone-create-dns-record' || opId === 'dns-records-for-a-zone-update-dns-record') {
      gaps.add('dnsRecordBodyId');
      return checkRecord(ex.requestBody, 'request');
    }
    return check(REQ, parts, ex.requestBody, 'request', strictBodies);
  };

  /**
   * A record body against its own type's branch of the record oneOf (the same verdict, since each branch fixes
   * `type`, but the reasons name that type's fields instead of every branch's); an unknown type meets the oneOf.
   */
  const checkRecord = (body: unknown, where: string): string[] => {
    const type = (body as { type?: unknown } | undefined)?.type;
    const variant = typeof type === 'string' ? `dns-records_${type}Record` : '';
    const name = variant && reqDoc.components.schemas[variant] ? variant : 'dns-records_dns-record';
    return check(REQ, ['components', 'schemas', name], body, where, strictBodies);
  };

  const checkBatchRequest = (ex: Exchange, gaps: Set<SchemaGap>): string[] => {
    gaps.add('dnsBatchMissing');
    gaps.add('dnsRecordBodyId');
    const problems = check(
      REQ,
      ['components', 'schemas', 'fleetdesk_dns_batch_request'],
      ex.requestBody,
      'request',
      strictBodies,
    );
    const body = ex.requestBody as { patches?: { id?: string; type?: string }[]; puts?: unknown; posts?: unknown };
    for (const kind of ['puts', 'posts'] as const) {
      const list = body?.[kind];
      if (Array.isArray(list)) list.forEach((r, i) => problems.push(...checkRecord(r, `request /${kind}/${i}`)));
    }
    (body?.patches ?? []).forEach((p, i) => {
      gaps.add('dnsPatchPartial');
      const { id, ...fields } = p;
      problems.push(
        ...checkPartialRecord(p.type ?? (id ? typeLookup(id) : undefined), fields, `request /patches/${i}`),
      );
    });
    return problems;
  };

  const checkBatch = (ex: Exchange, gaps: Set<SchemaGap>): string[] => {
    const problems = checkBatchRequest(ex, gaps);
    problems.push(
      ...checkResponse(undefined, ex, gaps, {
        success: ['components', 'schemas', 'fleetdesk_dns_batch_response'],
        failure: ['components', 'schemas', 'dns-records_api-response-common-failure'],
      }),
    );
    return problems;
  };

  return {
    /** Validates one exchange; call in the order they happened (patches are typed from earlier answers). */
    validate(ex: Exchange): ValidationReport {
      const report = validateOne(ex);
      rememberRecords(ex);
      return report;
    },

    /**
     * Validates a request alone (path and query parameters, security, body) against what the document itself
     * declares, without strict mode; `recordType` names the type of an existing DNS record (for patches).
     */
    validateRequest(
      req: Pick<Exchange, 'method' | 'path' | 'query' | 'auth' | 'requestBody'>,
      recordType: (id: string) => string | undefined,
    ): ValidationReport {
      const ex: Exchange = { ...req, status: 0, responseBody: undefined };
      const saved = typeLookup;
      typeLookup = recordType;
      strictBodies = false;
      try {
        const gaps = new Set<SchemaGap>();
        if (ex.method === 'POST' && /^\/zones\/[^/]+\/dns_records\/batch$/.test(ex.path)) {
          const m = match('POST', ex.path.replace(/\/batch$/, ''));
          const problems = m ? [...checkParameters(m, ex), ...checkSecurity(m, ex, gaps)] : [];
          problems.push(...checkBatchRequest(ex, gaps));
          return { operation: 'dns-records-batch (not in schema)', problems, gaps: [...gaps] };
        }
        const m = match(ex.method, ex.path);
        if (!m) return { operation: `${ex.method} ${ex.path}`, problems: [], gaps: [] };
        const problems = [...checkParameters(m, ex), ...checkSecurity(m, ex, gaps), ...checkRequestBody(m, ex, gaps)];
        return { operation: m.op.operationId, problems, gaps: [...gaps] };
      } finally {
        typeLookup = saved;
        strictBodies = true;
      }
    },

    /** Validates raw data against a location in the prepared request or response document. */
    validateAt(kind: 'request' | 'response', parts: (string | number)[], data: unknown): string[] {
      return check(kind === 'request' ? REQ : RES, parts, data, '');
    },

    operationFor(method: string, path: string): string | undefined {
      return match(method, path)?.op.operationId;
    },
  };

  function validateOne(ex: Exchange): ValidationReport {
    const gaps = new Set<SchemaGap>();
    if (ex.method === 'POST' && /^\/zones\/[^/]+\/dns_records\/batch$/.test(ex.path)) {
      // Parameters and security are those of the single-record create call on the same collection.
      const m = match('POST', ex.path.replace(/\/batch$/, ''));
      const problems = m
        ? [...checkParameters(m, ex), ...checkSecurity(m, ex, gaps)]
        : ['no operation in the schema matches the records collection'];
      problems.push(...checkBatch(ex, gaps));
      return { operation: 'dns-records-batch (not in schema)', problems, gaps: [...gaps] };
    }
    const m = match(ex.method, ex.path);
    if (!m) {
      return { operation: `${ex.method} ${ex.path}`, problems: ['no operation in the schema matches'], gaps: [] };
    }
    const problems = [
      ...checkParameters(m, ex),
      ...checkSecurity(m, ex, gaps),
      ...checkRequestBody(m, ex, gaps),
      ...checkResponse(m, ex, gaps, { success: [], failure: [] }),
    ];
    return { operation: m.op.operationId, problems, gaps: [...gaps] };
  }
}
