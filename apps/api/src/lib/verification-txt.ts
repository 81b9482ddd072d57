import type { Actor } from '../http/context.ts';

/** The existing Cloudflare DNS code, as a site verification (Yandex, Google) uses it for its TXT record. */
export interface VerificationDnsPort {
  listDnsRecords(domainId: string): Promise<{ result: { type: string; name: string; content: string }[] }>;
  changeDnsRecords(
    domainId: string,
    input: {
      deletes: { id: string }[];
      patches: never[];
      posts: { type: string; name: string; content: string; proxied: boolean; ttl: number }[];
    },
    actor: Actor,
  ): Promise<unknown>;
}

/** The content-file layer as a verification uses it: one file in the root of the domain's content directory. */
export interface VerificationFilePort {
  writeRootFile(domainId: string, name: string, content: string, actor: Actor): Promise<void>;
}

/** Adds the TXT record `name "content"` to the domain's zone unless it is there already (quoted or not). */
export async function ensureTxtRecord(
  dns: VerificationDnsPort,
  domainId: string,
  name: string,
  content: string,
  actor: Actor,
) {
  const records = (await dns.listDnsRecords(domainId)).result;
  const unquote = (s: string) => s.replace(/^"|"$/g, '');
  if (records.some((r) => r.type === 'TXT' && r.name === name && unquote(r.content) === content)) return false;
  await dns.changeDnsRecords(
    domainId,
    { deletes: [], patches: [], posts: [{ type: 'TXT', name, content, proxied: false, ttl: 1 }] },
    actor,
  );
  return true;
}
