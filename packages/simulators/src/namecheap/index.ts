export { startNamecheapSim, createNamecheapState, DEFAULT_NAME_SERVERS, SIM_ERRORS, SIM_PRICES } from './server.ts';
export type {
  NamecheapRequestLogEntry,
  NamecheapSim,
  NamecheapSimFailure,
  NamecheapSimOptions,
  NamecheapSimState,
  SimNcDomain,
} from './server.ts';
export { seedNamecheapDemo } from './demo-seed.ts';
export type { NamecheapDemoSeed } from './demo-seed.ts';
