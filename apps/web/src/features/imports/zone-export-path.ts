/** The page of a zone files export job; apart from the page, so the domains list links to it without loading it. */
export const zoneExportPath = (jobId: string) => `/imports/zone-export/${encodeURIComponent(jobId)}`;
