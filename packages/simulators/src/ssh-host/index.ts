export { startSshHost, sshFingerprint } from './ssh-host.ts';
export type { SshHost, SshHostOptions } from './ssh-host.ts';
export { generateSshKeyPair } from './generate-key.ts';
