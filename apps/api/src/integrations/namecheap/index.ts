export {
  createNamecheapClient,
  NAMECHEAP_ERROR_TEXT,
  NAMECHEAP_DOMAIN_ERRORS,
  splitDomain,
} from './namecheap-client.ts';
export type { NamecheapClient, NamecheapClientOptions, NcPrice } from './namecheap-client.ts';
export type * from './types.ts';
