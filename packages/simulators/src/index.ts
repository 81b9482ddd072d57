export * from './cloudflare/index.ts';
export * from './ssh-host/index.ts';
export * from './proxy/index.ts';
export * from './directadmin/index.ts';
export * from './ispmanager/index.ts';
export * from './namecheap/index.ts';
export * from './yandex-webmaster/index.ts';
export * from './site/index.ts';
