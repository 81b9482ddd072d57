export type SshTarget = {
  /** Pool key: one connection per server. */
  serverId: string;
  host: string;
  port: number;
  username: string;
  /** OpenSSH or PEM (PKCS#1, SEC1 or unencrypted PKCS#8) private key text. */
  privateKey: string;
  /** `SHA256:…` stored for this server, or null to trust the key seen on first connect. */
  knownHostFingerprint: string | null;
};

export type ExecResult = {
  code: number;
  stdout: string;
  stderr: string;
  /** The host key fingerprint of the connection the command ran on; store it when the target had none. */
  hostFingerprint: string;
};

/** `host:port`, with IPv6 addresses bracketed as in a URL. */
export function hostPort(target: Pick<SshTarget, 'host' | 'port'>): string {
  return `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
}
