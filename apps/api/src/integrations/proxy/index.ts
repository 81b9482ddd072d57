export { checkProxy, type ProxyCheckOptions, type ProxyCheckResult } from './check-proxy.ts';
export {
  createProxyDispatcher,
  proxyAddress,
  type ProxyDispatcherOptions,
  type ProxyEndpoint,
} from './proxy-dispatcher.ts';
