export { startIspManagerSim } from './server.ts';
export type {
  IspManagerFailure,
  IspManagerRequestLog,
  IspManagerSim,
  IspManagerSimOptions,
  IspManagerSimSite,
  IspManagerSimUser,
} from './server.ts';
