/**
 * The part of Cloudflare's official OpenAPI file the simulator serves: the operations it answers and every
 * component they reach through $ref, unchanged. The demo ships without ../shared, so this extract is committed
 * (cloudflare-openapi.extract.json, written by `npm run sim:cf-schema`); extract.test.ts checks it still equals a
 * fresh extraction whenever the official file is present.
 */
type Json = any;

/** Each [method, path template] the simulator answers (the batch call is newer than the document). */
export const SIMULATED_OPERATIONS: readonly (readonly [string, string])[] = [
  ['get', '/accounts'],
  ['get', '/zones'],
  ['post', '/zones'],
  ['get', '/zones/{zone_id}'],
  ['delete', '/zones/{zone_id}'],
  ['get', '/zones/{zone_id}/settings/{setting_id}'],
  ['patch', '/zones/{zone_id}/settings/{setting_id}'],
  ['get', '/zones/{zone_id}/dns_records'],
  ['post', '/zones/{zone_id}/dns_records'],
  ['get', '/zones/{zone_id}/dns_records/{dns_record_id}'],
  ['patch', '/zones/{zone_id}/dns_records/{dns_record_id}'],
  ['put', '/zones/{zone_id}/dns_records/{dns_record_id}'],
  ['delete', '/zones/{zone_id}/dns_records/{dns_record_id}'],
  ['get', '/zones/{zone_id}/rulesets'],
  ['get', '/zones/{zone_id}/rulesets/phases/{ruleset_phase}/entrypoint'],
  ['put', '/zones/{zone_id}/rulesets/phases/{ruleset_phase}/entrypoint'],
  ['post', '/zones/{zone_id}/purge_cache'],
];

function refsIn(node: Json, out: Set<string>): void {
  if (Array.isArray(node)) for (const n of node) refsIn(n, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.add(v);
      else refsIn(v, out);
    }
  }
}

export function extractOpenApi(doc: Json): Json {
  const paths: Json = {};
  for (const [method, template] of SIMULATED_OPERATIONS) {
    const item = doc.paths?.[template];
    if (!item?.[method]) throw new Error(`the OpenAPI file has no ${method.toUpperCase()} ${template}`);
    paths[template] ??= item.parameters ? { parameters: item.parameters } : {};
    paths[template][method] = item[method];
  }
  const components: Json = {};
  const seen = new Set<string>();
  const queue = new Set<string>();
  refsIn(paths, queue);
  // Security applies to every operation; all schemes are kept so a token call can be told from a key call.
  const schemes = doc.components?.securitySchemes;
  while (queue.size > 0) {
    const [ref] = queue;
    queue.delete(ref!);
    if (seen.has(ref!)) continue;
    seen.add(ref!);
    const m = /^#\/components\/([^/]+)\/(.+)$/.exec(ref!);
    if (!m) throw new Error(`unsupported $ref ${ref}`);
    const [, section, rawName] = m;
    const name = rawName!.replace(/~1/g, '/').replace(/~0/g, '~');
    const node = doc.components?.[section!]?.[name];
    if (node === undefined) throw new Error(`dangling $ref ${ref}`);
    (components[section!] ??= {})[name] = node;
    refsIn(node, queue);
  }
  if (schemes) components.securitySchemes = schemes;
  // Stable order, so a fresh extraction compares equal to the committed one.
  for (const section of Object.keys(components)) {
    components[section] = Object.fromEntries(
      Object.keys(components[section])
        .sort()
        .map((k) => [k, components[section][k]]),
    );
  }
  const out: Json = { openapi: doc.openapi, info: doc.info, paths, components };
  if (doc.security) out.security = doc.security;
  return out;
}
