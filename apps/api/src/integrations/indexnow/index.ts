export {
  createIndexNowClient,
  IndexNowError,
  INDEXNOW_BATCH,
  INDEXNOW_KEY_RE,
  INDEXNOW_MAX_URL_CHARS,
  meaningOf,
} from './indexnow-client.ts';
export type { IndexNowAnswer, IndexNowClient, IndexNowClientOptions, IndexNowSubmit } from './indexnow-client.ts';
