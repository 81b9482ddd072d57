import { fetch as undiciFetch } from 'undici';
import { UpstreamError } from '../../http/errors.ts';
import { providerFetch } from '../provider-calls.ts';

const PROVIDER = 'IndexNow';
/** The protocol's key: 8–128 characters of a-z, A-Z, 0-9 and "-". */
export const INDEXNOW_KEY_RE = /^[a-zA-Z0-9-]{8,128}$/;
/** URLs in one POST, at most (the protocol's limit). */
export const INDEXNOW_BATCH = 10_000;
/** A longer URL is not sent: no engine indexes it, and it would only swell the body. */
export const INDEXNOW_MAX_URL_CHARS = 2048;
/** The engines answer with an empty body or a line of text; more than this is not read. */
const MAX_ANSWER_CHARS = 64 * 1024;

/** What each answer of the protocol means (indexnow.org, Yandex's reference), in the words the job results show. */
export const INDEXNOW_MEANINGS: Record<number, string> = {
  200: 'received',
  202: 'accepted, the key is checked later',
  400: 'bad request',
  403: 'key not valid',
  405: 'method not allowed',
  413: 'request too large',
  422: 'URLs not of the host, or key not valid',
  429: 'too many requests',
};
export const meaningOf = (status: number) =>
  INDEXNOW_MEANINGS[status] ?? (status >= 500 ? 'server error' : 'unexpected answer');

/**
 * A submission IndexNow did not take: a refusal (4xx, with the protocol's meaning), a server error, a timeout or an
 * answer that is not IndexNow's. `upstreamStatus` is IndexNow's HTTP status when there was one.
 */
export class IndexNowError extends UpstreamError {
  /** The answers of the batches taken before this one (a submission of many batches). */
  answersBefore: IndexNowAnswer[] = [];
  constructor(
    message: string,
    status: number | null,
    readonly refused: boolean,
    opts: { timeout?: boolean } = {},
  ) {
    super(PROVIDER, message, {
      ...opts,
      upstreamStatus: status ?? undefined,
      code: refused ? 'indexnow_refused' : undefined,
    });
  }
}

export interface IndexNowClientOptions {
  /** e.g. https://api.indexnow.org/indexnow */
  endpoint: string;
  /** Per request. Default 15 s. */
  timeoutMs?: number;
  fetchImpl?: typeof undiciFetch;
}

export type IndexNowSubmit = { host: string; key: string; keyLocation?: string; urls: string[] };
/** One batch's answer: how many URLs it carried, the status and what the status means. */
export type IndexNowAnswer = { urls: number; status: number; meaning: string };

/** Reads at most MAX_ANSWER_CHARS of an answer's body; the rest is dropped with the connection. */
async function boundedText(res: Awaited<ReturnType<typeof undiciFetch>>): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (text.length > MAX_ANSWER_CHARS) {
      await reader.cancel().catch(() => undefined);
      return text.slice(0, MAX_ANSWER_CHARS);
    }
  }
  return text + decoder.decode();
}

const looksLikeHtml = (type: string, text: string) => /text\/html/i.test(type) || /^\s*<(!doctype|html)/i.test(text);

export function createIndexNowClient(opts: IndexNowClientOptions) {
  const endpoint = opts.endpoint;
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const doFetch = providerFetch('indexnow', opts.fetchImpl ?? undiciFetch);

  /** One POST of at most 10,000 URLs of the host: 200 and 202 are answers, anything else an IndexNowError. */
  async function post(s: IndexNowSubmit): Promise<IndexNowAnswer> {
    const body = JSON.stringify({
      host: s.host,
      key: s.key,
      ...(s.keyLocation ? { keyLocation: s.keyLocation } : {}),
      urlList: s.urls,
    });
    let res: Awaited<ReturnType<typeof undiciFetch>>;
    let text: string;
    try {
      res = await doFetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await boundedText(res);
    } catch (err) {
      const timeout = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      throw new IndexNowError(
        timeout ? `IndexNow did not answer within ${Math.round(timeoutMs / 1000)} s` : 'IndexNow could not be reached',
        null,
        false,
        { timeout },
      );
    }
    const status = res.status;
    const html = looksLikeHtml(res.headers.get('content-type') ?? '', text);
    // The engines answer a submission with an empty body: a web page means the endpoint is not IndexNow's.
    if (html)
      throw new IndexNowError(
        `IndexNow answered ${status} with an HTML page, not the protocol's answer`,
        status,
        false,
      );
    if (status === 200 || status === 202) return { urls: s.urls.length, status, meaning: meaningOf(status) };
    if (status >= 500) throw new IndexNowError(`IndexNow answered ${status}: ${meaningOf(status)}`, status, false);
    throw new IndexNowError(`IndexNow refused the submission: ${status} ${meaningOf(status)}`, status, true);
  }

  return {
    endpoint,
    /**
     * Submits URLs of one host in batches of at most 10,000, in order; stops at the first batch not taken (a
     * refusal would repeat for the next ones) and throws it, with the answers of the batches before it.
     */
    async submit(s: IndexNowSubmit): Promise<IndexNowAnswer[]> {
      if (!INDEXNOW_KEY_RE.test(s.key))
        throw new IndexNowError('The IndexNow key is not 8 to 128 letters, digits or -', null, true);
      const answers: IndexNowAnswer[] = [];
      for (let i = 0; i < s.urls.length; i += INDEXNOW_BATCH) {
        try {
          answers.push(await post({ ...s, urls: s.urls.slice(i, i + INDEXNOW_BATCH) }));
        } catch (err) {
          if (err instanceof IndexNowError) err.answersBefore = answers;
          throw err;
        }
      }
      return answers;
    },
  };
}
export type IndexNowClient = ReturnType<typeof createIndexNowClient>;
