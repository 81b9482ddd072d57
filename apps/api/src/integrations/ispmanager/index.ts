export { createIspManagerClient, IspManagerError } from './ispmanager-client.ts';
export type {
  IspManagerClient,
  IspManagerClientOptions,
  IspManagerCredentials,
  IspSiteForm,
  IspSiteRow,
} from './ispmanager-client.ts';
