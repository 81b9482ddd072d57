/**
 * Words for the codes Yandex Webmaster answers with (docs/integrations/yandex-webmaster.md §4–§8). The page shows
 * the word; the code stays on hover, for anyone comparing with Yandex's own screens or docs.
 */
const LABELS: Record<string, string> = {
  // site_problems severities
  FATAL: 'Fatal',
  CRITICAL: 'Critical',
  POSSIBLE_PROBLEM: 'Possible problems',
  RECOMMENDATION: 'Recommendations',
  // indexing_status.status
  HTTP_2XX: 'Success (2xx)',
  HTTP_3XX: 'Redirect (3xx)',
  HTTP_4XX: 'Client error (4xx)',
  HTTP_5XX: 'Server error (5xx)',
  OTHER: 'Other',
  // change_indicators
  INDEXING_HTTP_CODE: 'HTTP code',
  SEARCH_STATUS: 'Search status',
  TITLE: 'Title',
  DESCRIPTION: 'Description',
  // search_status.excluded_url_status
  NOTHING_FOUND: 'Not excluded',
  HOST_ERROR: 'Host error',
  REDIRECT_NOTSEARCHABLE: 'Redirect, not searchable',
  HTTP_ERROR: 'HTTP error',
  NOT_CANONICAL: 'Not canonical',
  NOT_MAIN_MIRROR: 'Not the main mirror',
  PARSER_ERROR: 'Parser error',
  ROBOTS_HOST_ERROR: 'Site blocked by robots.txt',
  ROBOTS_URL_ERROR: 'Page blocked by robots.txt',
  DUPLICATE: 'Duplicate',
  CLEAN_PARAMS: 'Clean-param in robots.txt',
  NO_INDEX: 'noindex',
  LOW_QUALITY: 'Low quality',
  // sitemap sources and types
  ROBOTS_TXT: 'robots.txt',
  WEBMASTER: 'Added in Webmaster',
  INDEX_SITEMAP: 'Sitemap index',
  SITEMAP: 'Sitemap',
  // verification_state
  NONE: 'Not verified',
  VERIFIED: 'Verified',
  IN_PROGRESS: 'In progress',
  VERIFICATION_FAILED: 'Failed',
  INTERNAL_ERROR: 'Yandex internal error',
  // verification_type
  META_TAG: 'Meta tag',
  HTML_FILE: 'HTML file',
  DNS: 'DNS record',
  AUTO: 'Automatic',
  DELEGATED: 'Delegated',
  PDD: 'Yandex Mail for Domain',
  TXT_FILE: 'Text file',
  WHOIS: 'WHOIS',
  // fail_info.reason
  DELEGATION_CANCELLED: 'Delegation cancelled',
  DNS_RECORD_NOT_FOUND: 'DNS record not found',
  META_TAG_NOT_FOUND: 'Meta tag not found',
  WRONG_HTML_PAGE_CONTENT: 'Wrong HTML file content',
  PDD_VERIFICATION_CANCELLED: 'Mail for Domain verification cancelled',
  // recrawl task state
  DONE: 'Done',
  FAILED: 'Failed',
  // host_data_status
  OK: 'OK',
  NOT_INDEXED: 'Not indexed',
  NOT_LOADED: 'Not loaded',
};

/** The word for a code; an unknown code becomes words too (NEW_THING → New thing). */
export function yandexLabel(code: string): string {
  const known = LABELS[code];
  if (known) return known;
  const words = code.toLowerCase().replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A code shown as its word, with the code on hover; an empty value is a dash. */
export function YandexCode({ code, testId }: { code: string | null | undefined; testId?: string }) {
  if (!code) return <span data-testid={testId}>—</span>;
  return (
    <span title={code} data-code={code} data-testid={testId}>
      {yandexLabel(code)}
    </span>
  );
}

/** A list of codes as words, comma separated. */
export function YandexCodes({ codes }: { codes: readonly string[] | null | undefined }) {
  if (!codes?.length) return <>—</>;
  return (
    <>
      {codes.map((c, i) => (
        <span key={c}>
          {i > 0 && ', '}
          <YandexCode code={c} />
        </span>
      ))}
    </>
  );
}
