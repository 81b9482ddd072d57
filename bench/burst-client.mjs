// The client of `bench:domains --burst`, in a worker thread: its own event loop, so the figures are the API's
// and not the wait of a client sharing the API's thread (PGlite runs each statement on that thread).
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';

const { base, headers, ids, seconds, connections, reads } = workerData;
const kinds = [...reads.map((r) => `GET ${r}`), 'PATCH status'];
const times = Object.fromEntries(kinds.map((k) => [k, []]));
const statuses = {};
let errors = 0;
let n = 0;
let slowest = { ms: 0, sentAt: 0, kind: '' };
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
const send = (method, pathname, body) =>
  new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${pathname}`,
      {
        method,
        agent,
        headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
        timeout: 60_000,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
const started = performance.now();
const until = started + seconds * 1000;
const loop = async () => {
  while (performance.now() < until) {
    const k = n++;
    let kind;
    const t0 = performance.now();
    let call;
    if (k % 5 === 4) {
      const d = ids[k % ids.length];
      d.status = d.status === 'active' ? 'inactive' : 'active';
      kind = 'PATCH status';
      call = send('PATCH', `/api/domains/${d.id}`, JSON.stringify({ status: d.status }));
    } else {
      const r = reads[k % reads.length];
      kind = `GET ${r}`;
      call = send('GET', `/api/domains${r}`);
    }
    try {
      const status = await call;
      statuses[status] = (statuses[status] ?? 0) + 1;
    } catch {
      errors++;
    }
    const ms = performance.now() - t0;
    times[kind].push(ms);
    if (ms > slowest.ms) slowest = { ms, sentAt: t0 - started, kind };
  }
};
await Promise.all(Array.from({ length: connections }, loop));
agent.destroy();
parentPort.postMessage({ times, statuses, errors, slowest });
