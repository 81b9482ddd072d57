import { Worker } from 'node:worker_threads';
import { ZONE_FILE_MAX_BYTES, ZONE_FILE_READ_SECONDS, ZONE_FILE_TEXT } from '@fleetdesk/contract';
import { AppError, ValidationError } from '../../http/errors.ts';
import type { ParsedZoneFile } from './zone-file-read.ts';

type Reply =
  | { ready: true }
  | { id: number; ok: true; result: ParsedZoneFile }
  | {
      id: number;
      ok: false;
      error: { message: string; status?: number; code?: string; fields?: Record<string, string> };
    };
type Job = {
  id: number;
  bytes: Buffer;
  zoneName: string;
  resolve: (r: ParsedZoneFile) => void;
  reject: (e: Error) => void;
};

/** Reads the upload into memory, refusing it as soon as it passes the size limit (reading bytes is cheap). */
export async function readUpload(
  body: AsyncIterable<Buffer | string>,
  maxBytes = ZONE_FILE_MAX_BYTES,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of body) {
    const b = typeof c === 'string' ? Buffer.from(c) : c;
    size += b.length;
    if (size > maxBytes) throw new ValidationError(ZONE_FILE_TEXT.tooLarge, { file: ZONE_FILE_TEXT.tooLarge });
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

/**
 * Zone files are read on a worker thread (decision 061): one thread, started on first use, reading one file at a
 * time. A file that takes longer than the bound ends the thread (the next file starts a new one) and is refused.
 */
export function createZoneFileReader(opts: { timeoutMs?: number } = {}) {
  const timeoutMs = opts.timeoutMs ?? ZONE_FILE_READ_SECONDS * 1000;
  let worker: Worker | null = null;
  let ready: Promise<Worker> | null = null;
  let seq = 0;
  const queue: Job[] = [];
  let running: { job: Job; timer: NodeJS.Timeout } | null = null;
  let closed = false;

  const failAll = (err: Error) => {
    if (running) {
      clearTimeout(running.timer);
      running.job.reject(err);
      running = null;
    }
    for (const j of queue.splice(0)) j.reject(err);
  };

  const start = () => {
    ready ??= new Promise<Worker>((resolve, reject) => {
      const w = new Worker(new URL('./zone-file-worker.mjs', import.meta.url));
      w.unref();
      const onStartError = (err: Error) => reject(new Error(`Zone file reader failed to start: ${err.message}`));
      w.once('error', onStartError);
      w.on('message', (m: Reply) => {
        if ('ready' in m) {
          w.off('error', onStartError);
          w.on('error', (err) => failAll(new Error(`Zone file reader failed: ${err.message}`)));
          worker = w;
          resolve(w);
          return;
        }
        if (!running || running.job.id !== m.id) return;
        const { job, timer } = running;
        clearTimeout(timer);
        running = null;
        if (m.ok) job.resolve(m.result);
        else {
          const e = m.error;
          job.reject(
            e.status === 400
              ? new ValidationError(e.message, e.fields, e.code)
              : new AppError(500, 'zone_file_reader', e.message),
          );
        }
        void next();
      });
      w.once('exit', () => {
        if (worker === w) worker = null;
        ready = null;
        failAll(new Error('Zone file reader stopped'));
      });
    });
    return ready;
  };

  const next = async () => {
    if (running || closed) return;
    const job = queue.shift();
    if (!job) return;
    let w: Worker;
    try {
      w = await start();
    } catch (err) {
      job.reject(err as Error);
      return void next();
    }
    const timer = setTimeout(() => {
      // Too much work: the thread is ended mid-read, the file refused; the queue goes on with a new thread.
      if (running?.job !== job) return;
      running = null;
      job.reject(new ValidationError(ZONE_FILE_TEXT.tooSlow, { file: ZONE_FILE_TEXT.tooSlow }));
      worker = null;
      ready = null;
      w.removeAllListeners('exit');
      void w.terminate().finally(() => void next());
    }, timeoutMs);
    running = { job, timer };
    const copy = new Uint8Array(job.bytes).buffer;
    w.postMessage({ id: job.id, bytes: copy, zoneName: job.zoneName }, [copy]);
  };

  return {
    /** The file read for the zone `zoneName`, as parseZoneFile reads it, off this thread. */
    parse(bytes: Buffer, zoneName: string): Promise<ParsedZoneFile> {
      if (closed) return Promise.reject(new Error('Zone file reader is closed'));
      return new Promise<ParsedZoneFile>((resolve, reject) => {
        queue.push({ id: ++seq, bytes, zoneName, resolve, reject });
        void next();
      });
    },
    async close() {
      closed = true;
      failAll(new Error('Zone file reader is closed'));
      const w = worker;
      worker = null;
      ready = null;
      if (w) await w.terminate();
    },
  };
}
export type ZoneFileReader = ReturnType<typeof createZoneFileReader>;
