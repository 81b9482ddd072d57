import path from 'node:path';

/** Normalises a remote path the way sftp-server does: relative paths start at "/" (the home), ".." stops at the root. */
export function normaliseRemotePath(remote: string): string {
  const normalised = path.posix.normalize(`/${remote}`);
  return normalised.length > 1 && normalised.endsWith('/') ? normalised.slice(0, -1) : normalised;
}

/** Maps a remote path onto rootDir. Normalising first keeps every result inside rootDir, whatever ".." it holds. */
export function toLocalPath(rootDir: string, remote: string): string {
  return path.join(rootDir, ...normaliseRemotePath(remote).split('/').filter(Boolean));
}
