export { parseHostUrl, startYandexWebmasterSim } from './server.ts';
export type {
  SimHost,
  SimUser,
  VerificationState,
  VerifierType,
  YandexWebmasterFailure,
  YandexWebmasterSim,
  YandexWebmasterSimOptions,
} from './server.ts';
export { cloudflareTxtLookup, directoryFileLookup } from './lookups.ts';
