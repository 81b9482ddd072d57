export { INDEXNOW_KEY, INDEXNOW_MAX_URLS, startIndexNowSim } from './server.ts';
export type { IndexNowFailure, IndexNowSim, IndexNowSimOptions, IndexNowSubmission } from './server.ts';
