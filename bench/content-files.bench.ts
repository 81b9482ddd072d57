/**
 * Content-file uploads and downloads at size, through the real HTTP API and the SSH test host.
 *
 *   npm run bench:files              a 200 MB file up, then down
 *   npm run bench:files -- --mb 500
 *
 * Starts the SSH test host and the app (PGlite, 127.0.0.1, a random port), makes a server, a domain and its
 * directory, then streams a multipart upload generated on the fly (never held in memory) and downloads the file
 * back, counting bytes. It samples the process's RSS every 20 ms and prints the peak next to the file size: with
 * streaming the peak stays far below the file size. It prints figures and never asserts a time.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { startSshHost } from '../packages/simulators/src/ssh-host/index.ts';
import { generateKeyPair } from '../apps/api/src/files/ssh/index.ts';
import { createTestApp } from '../apps/api/src/test/harness.ts';

const args = process.argv.slice(2);
const i = args.indexOf('--mb');
const MB = i >= 0 ? Number(args[i + 1]) : 200;
const SIZE = MB * 1024 * 1024;
const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

let peak = 0;
const sample = () => (peak = Math.max(peak, process.memoryUsage.rss()));
const timer = setInterval(sample, 20);

const key = generateKeyPair('ed25519');
const host = await startSshHost({ authorizedKeys: [key.publicLine] });
const t = await createTestApp({ CONTENT_UPLOAD_MAX_FILE_MB: String(MB + 1), LOG_LEVEL: 'warn' });
await t.app.listen({ port: 0, host: '127.0.0.1' });
const port = (t.app.server.address() as AddressInfo).port;
const auth = await t.tokenFor(['cnv']);
const json = async (method: string, url: string, payload?: object) => {
  const res = await t.inject({ method: method as 'POST', url, headers: { authorization: auth }, payload });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json().data;
};
const server = await json('POST', '/api/servers', { IPAddress: '127.0.0.1', sshPort: host.port, domainsPath: '/www' });
await json('POST', `/api/servers/${server._id}/rsa-key`, { rsaKey: key.privateKey });
const domain = await json('POST', '/api/domains', {
  domainName: 'bench.example',
  status: 'active',
  serverId: server._id,
});
await json('POST', `/api/domains/${domain._id}/content-files/create-domain-dir`);
const base = `/api/domains/${domain._id}/content-files`;
sample();
const baseline = process.memoryUsage.rss();
peak = baseline;

// Upload: the multipart body is written chunk by chunk from one 1 MiB buffer.
const boundary = `----bench${crypto.randomBytes(8).toString('hex')}`;
const head = Buffer.from(
  `--${boundary}\r\nContent-Disposition: form-data; name="filesPathes"\r\n\r\nbig/archive.bin\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="archive.bin"\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n',
);
const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
const block = crypto.randomBytes(1024 * 1024);
let start = performance.now();
const uploaded = await new Promise<string>((resolve, reject) => {
  const req = http.request(
    {
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: `${base}/upload?path=%2F`,
      headers: {
        authorization: auth,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': head.length + SIZE + tail.length,
      },
    },
    (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`${res.statusCode} ${body}`))));
    },
  );
  req.on('error', reject);
  let sent = 0;
  req.write(head);
  const pump = () => {
    while (sent < SIZE) {
      const n = Math.min(block.length, SIZE - sent);
      sent += n;
      if (!req.write(n === block.length ? block : block.subarray(0, n))) return void req.once('drain', pump);
    }
    req.end(tail);
  };
  pump();
});
const upSeconds = (performance.now() - start) / 1000;
const upPeak = peak;
console.log(
  `upload   ${mib(SIZE)} in ${upSeconds.toFixed(2)} s (${(MB / upSeconds).toFixed(1)} MiB/s) → ${uploaded.slice(0, 80)}`,
);

// Download: bytes counted and dropped.
peak = process.memoryUsage.rss();
start = performance.now();
const received = await new Promise<number>((resolve, reject) => {
  http
    .get(
      { host: '127.0.0.1', port, path: `${base}/download?path=%2Fbig%2Farchive.bin`, headers: { authorization: auth } },
      (res) => {
        let n = 0;
        res.on('data', (d: Buffer) => (n += d.length));
        res.on('end', () => (res.statusCode === 200 ? resolve(n) : reject(new Error(String(res.statusCode)))));
      },
    )
    .on('error', reject);
});
const downSeconds = (performance.now() - start) / 1000;
console.log(`download ${mib(received)} in ${downSeconds.toFixed(2)} s (${(MB / downSeconds).toFixed(1)} MiB/s)`);
if (received !== SIZE) throw new Error(`downloaded ${received} bytes, expected ${SIZE}`);

clearInterval(timer);
console.log(
  `rss: baseline ${mib(baseline)}, peak during upload ${mib(upPeak)} (+${mib(upPeak - baseline)}), ` +
    `peak during download ${mib(peak)} (+${mib(peak - baseline)}); file ${mib(SIZE)}`,
);
console.log(`node ${process.version}, ${new Date().toISOString()} (app, SSH host and client in one process)`);
await t.close();
await host.close();
