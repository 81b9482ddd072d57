export {
  GoogleApiError,
  GoogleTokenError,
  createGoogleSearchClient,
  readPrivateKey,
  signAssertion,
} from './google-search-client.ts';
export type { GoogleSearchClient, GoogleSearchClientOptions } from './google-search-client.ts';
