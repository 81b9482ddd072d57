export {
  createDirectAdminClient,
  DirectAdminError,
  decodeEntities,
  parseUrlEncoded,
  plainText,
} from './directadmin-client.ts';
export type {
  DirectAdminClient,
  DirectAdminClientOptions,
  DirectAdminCredentials,
  DirectAdminDomainInfo,
  DirectAdminResult,
  DirectAdminServiceResponse,
} from './directadmin-client.ts';
