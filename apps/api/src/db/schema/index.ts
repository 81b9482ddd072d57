export * from './people.ts';
export * from './audit.ts';
export * from './catalogues.ts';
export * from './infrastructure.ts';
export * from './catalogues-people.ts';
export * from './domains.ts';
export * from './yandex-webmaster.ts';
