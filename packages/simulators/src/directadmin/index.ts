export { startDirectAdminSim, DIRECTADMIN_LOGIN_PAGE } from './server.ts';
export type {
  DirectAdminFailure,
  DirectAdminRequestLog,
  DirectAdminSim,
  DirectAdminSimDomain,
  DirectAdminSimOptions,
  DirectAdminSimUser,
} from './server.ts';
