export { startOidcSim } from './server.ts';
export type { OidcSim, OidcSimAccount, OidcSimOptions } from './server.ts';
