export * from './people.ts';
export * from './audit.ts';
export * from './catalogues.ts';
