export * from './constants.ts';
export * from './rules.ts';
export * from './common.ts';
export * from './auth.ts';
export * from './audit.ts';
export * from './brands.ts';
export * from './regions.ts';
