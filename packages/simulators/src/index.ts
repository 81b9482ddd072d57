export * from './cloudflare/index.ts';
export * from './ssh-host/index.ts';
export * from './proxy/index.ts';
export * from './yandex-webmaster/index.ts';
