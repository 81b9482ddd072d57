export { SshError, type SshErrorCode } from './ssh-error.ts';
export { hostPort, type ExecResult, type SshTarget } from './types.ts';
export {
  generateKeyPair,
  generateKeyPairLimited,
  parsePrivateKey,
  sshFingerprint,
  type GeneratedKeyPair,
  type ParsedPrivateKey,
} from './keys.ts';
export { createSshPool, type SshPool, type SshPoolOptions, type SshSession } from './ssh-pool.ts';
export {
  assertSshProbePort,
  parseDfOutput,
  shellQuote,
  testConnection,
  type ConnectionTestResult,
} from './test-connection.ts';
