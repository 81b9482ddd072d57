export { startForwardProxy } from './forward-proxy.ts';
export type { ForwardProxy, ForwardProxyOptions } from './forward-proxy.ts';
export { generateSelfSignedCert } from './self-signed-cert.ts';
