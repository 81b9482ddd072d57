export {
  openContentFs,
  PayloadTooLargeError,
  type ContentEntry,
  type ContentFs,
  type ContentFsOptions,
  type ContentItemType,
  type ContentStat,
  type WalkEntry,
  type WalkOptions,
} from './content-fs.ts';
export {
  copyTree,
  hashingStream,
  linkTally,
  COPY_FILE_ATTEMPTS,
  COPY_MAX_LISTED_FAILURES,
  SKIPPED_LINKS_LISTED,
  type CopyProgress,
  type CopySummary,
  type ChangeRecorder,
  type WrittenState,
  type SkippedLinks,
} from './content-tree.ts';
export {
  checkName,
  clientSegments,
  domainDirName,
  domainDirPath,
  isInside,
  normaliseRoot,
  resolveInside,
  MAX_NAME_BYTES,
  MAX_PATH_LENGTH,
} from './paths.ts';
import type { SshPool, SshTarget } from '../ssh/index.ts';
import { openContentFs, type ContentFsOptions } from './content-fs.ts';
import { domainDirPath } from './paths.ts';

/** The content files of one domain: `<domainsPath>/<domain in ASCII>` on its server (decision 020). */
export function openDomainContentFs(
  ssh: SshPool,
  target: SshTarget,
  server: { domainsPath: string },
  domainName: string,
  opts: Omit<ContentFsOptions, 'ssh' | 'target' | 'root'> = {},
) {
  return openContentFs({ ...opts, ssh, target, root: domainDirPath(server.domainsPath, domainName) });
}
