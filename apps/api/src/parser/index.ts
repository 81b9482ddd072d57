export { mirrorSite, sameSite, type MirrorFailure, type MirrorProgress, type MirrorResult } from './crawler.ts';
export {
  createFetcher,
  DEFAULT_USER_AGENT,
  FetchError,
  NoRouteError,
  type Fetcher,
  type FetcherOptions,
} from './fetcher.ts';
export { localPathOf, relativeLink, refKindOf, safeSegment, type RefKind } from './url-to-path.ts';
