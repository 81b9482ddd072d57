export type SshErrorCode =
  | 'refused'
  | 'timeout'
  | 'auth_failed'
  | 'host_key_changed'
  | 'no_key'
  | 'path_missing'
  | 'bad_key'
  | 'unreachable'
  | 'command_failed';

/** A failure of the SSH layer with a message fit to show an operator as-is (never holding a key). */
export class SshError extends Error {
  constructor(
    readonly code: SshErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SshError';
  }
}
