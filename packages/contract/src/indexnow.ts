/**
 * IndexNow's part of a job's result (issue 46, decision 075): what was submitted for the domain after the job's
 * change, and what the engine answered. A job leaves it out when the domain's brand has IndexNow off.
 */
export type IndexNowJobResult = {
  /** Taken (200 or 202 for every batch sent), or not: refused, failed, or not sent at all. */
  ok: boolean;
  /** One line for every screen: "IndexNow: 3 URLs submitted (200 received)", "IndexNow: refused (403 key not valid)". */
  message: string;
  /** The domain's host, as submitted. */
  host: string;
  /** Why these URLs: the pages the job changed, or the site's root and sitemap where those are not known. */
  what: string;
  /** URLs in the submission (the ones sent, when a batch was refused). */
  urls: number;
  /** The first URLs, to show. */
  sample: string[];
  /** Each batch's answer: URLs in it, HTTP status, its meaning (the refused or failed one last). */
  answers: { urls: number; status: number | null; meaning: string }[];
};

/** The IndexNow part of a job's result, when there is one. */
export function indexNowOf(result: Record<string, unknown> | null | undefined): IndexNowJobResult | null {
  const r = result?.indexNow as IndexNowJobResult | undefined;
  return r && typeof r.message === 'string' && typeof r.ok === 'boolean' ? r : null;
}
