import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIndexNowSim, type IndexNowSim } from '@fleetdesk/simulators/indexnow/index.ts';
import { createIndexNowClient, IndexNowError } from './index.ts';

let sim: IndexNowSim;
const KEY = 'f00dfeed-0000-key';
// The simulator's site: example.com serves the key; nothing else is known (checked later: 202).
const served = new Map([['example.com', KEY]]);
beforeAll(async () => {
  sim = await startIndexNowSim({
    fileLookup: (host, file) => (served.get(host) && file === `${served.get(host)}.txt` ? served.get(host) : undefined),
  });
});
afterAll(async () => sim?.close());

const client = (timeoutMs = 5000) => createIndexNowClient({ endpoint: sim.url, timeoutMs });
const urls = (n: number, host = 'example.com') => Array.from({ length: n }, (_, i) => `https://${host}/p/${i}`);
const failure = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(IndexNowError);
  return err as IndexNowError;
};

describe('IndexNow client against the simulator', () => {
  it('posts the host, the key and the URLs as JSON and reads 200 as received', async () => {
    const before = sim.submissions.length;
    const answers = await client().submit({ host: 'example.com', key: KEY, urls: urls(3) });
    expect(answers).toEqual([{ urls: 3, status: 200, meaning: 'received' }]);
    expect(sim.submissions.slice(before)).toMatchObject([
      { method: 'POST', host: 'example.com', key: KEY, keyLocation: null, urls: urls(3), status: 200 },
    ]);
  });

  it('splits more than 10,000 URLs into batches of 10,000', async () => {
    const before = sim.submissions.length;
    const answers = await client().submit({ host: 'example.com', key: KEY, urls: urls(10_001) });
    expect(answers.map((a) => [a.urls, a.status])).toEqual([
      [10_000, 200],
      [1, 200],
    ]);
    expect(sim.submissions.slice(before).map((s) => s.urls.length)).toEqual([10_000, 1]);
  });

  it('reads 202 as accepted with the key checked later', async () => {
    // A simulator that cannot look at the site answers as the engines do before they have checked the key.
    const blind = await startIndexNowSim();
    const answers = await createIndexNowClient({ endpoint: blind.url })
      .submit({ host: 'unknown.example', key: KEY, urls: urls(1, 'unknown.example') })
      .finally(() => blind.close());
    expect(answers).toEqual([{ urls: 1, status: 202, meaning: 'accepted, the key is checked later' }]);
  });

  it('names the refusals with their meaning: 403, 422', async () => {
    const e403 = await failure(client().submit({ host: 'example.com', key: 'another-key-1', urls: urls(1) }));
    expect(e403).toMatchObject({ upstreamStatus: 403, refused: true, provider: 'IndexNow', status: 502 });
    expect(e403.message).toBe('IndexNow refused the submission: 403 key not valid');
    const e422 = await failure(client().submit({ host: 'example.com', key: KEY, urls: ['https://other.example/'] }));
    expect(e422.message).toBe('IndexNow refused the submission: 422 URLs not of the host, or key not valid');
  });

  it('refuses to send a key of the wrong shape', async () => {
    const before = sim.submissions.length;
    const e = await failure(client().submit({ host: 'example.com', key: 'bad key', urls: urls(1) }));
    expect(e.message).toBe('The IndexNow key is not 8 to 128 letters, digits or -');
    expect(sim.submissions.length).toBe(before);
  });

  it('names 429, 5xx, an HTML page and a timeout as IndexNow failures', async () => {
    const s = { host: 'example.com', key: KEY, urls: urls(1) };
    sim.fail({ kind: '429' });
    const limited = await failure(client().submit(s));
    expect(limited).toMatchObject({ upstreamStatus: 429, refused: true });
    expect(limited.message).toBe('IndexNow refused the submission: 429 too many requests');
    sim.fail({ kind: '5xx' });
    const down = await failure(client().submit(s));
    expect(down).toMatchObject({ upstreamStatus: 503, refused: false, status: 502 });
    expect(down.message).toBe('IndexNow answered 503: server error');
    sim.fail({ kind: 'html' });
    expect((await failure(client().submit(s))).message).toBe(
      "IndexNow answered 200 with an HTML page, not the protocol's answer",
    );
    sim.fail({ kind: 'slow', delayMs: 2500 });
    const slow = await failure(client(1000).submit(s));
    expect(slow).toMatchObject({ upstreamStatus: undefined, status: 504 });
    expect(slow.message).toBe('IndexNow did not answer within 1 s');
  });

  it('stops at the first batch not taken, keeping the answers before it', async () => {
    const before = sim.submissions.length;
    // The second batch holds a URL of another host: refused, and the third is not sent.
    const list = [...urls(10_000), 'https://other.example/', ...urls(10_000)];
    const e = await failure(client().submit({ host: 'example.com', key: KEY, urls: list }));
    expect(e.upstreamStatus).toBe(422);
    expect(e.answersBefore).toEqual([{ urls: 10_000, status: 200, meaning: 'received' }]);
    expect(sim.submissions.slice(before).map((x) => x.status)).toEqual([200, 422]);
  });

  it('cannot reach a closed endpoint, and says so', async () => {
    const gone = await startIndexNowSim();
    const url = gone.url;
    await gone.close();
    const e = await failure(
      createIndexNowClient({ endpoint: url, timeoutMs: 2000 }).submit({
        host: 'a.example',
        key: KEY,
        urls: ['https://a.example/'],
      }),
    );
    expect(e.message).toBe('IndexNow could not be reached');
  });
});
