import fs from 'node:fs';
import type { AddressInfo, Server, Socket } from 'node:net';

/**
 * The simulators' one server set-up: listens on loopback (port 0: any free port) and answers the port and a
 * close() that drops open keep-alive sockets first, so tests and the demo stop at once.
 */
export async function listenOnLoopback(server: Server, port = 0): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

type JsonReplacer = (key: string, value: unknown) => unknown;

/** A simulator's saved state (the demo keeps it across restarts), or undefined when there is no file yet. */
export function readStateFile<T>(file: string | undefined, reviver?: JsonReplacer): T | undefined {
  if (!file || !fs.existsSync(file)) return undefined;
  return JSON.parse(fs.readFileSync(file, 'utf8'), reviver) as T;
}

/** Writes the state whole to a temp file, then renames it over the old one: a crash never leaves half a file. */
export function writeStateFile(file: string | undefined, value: unknown, replacer?: JsonReplacer): void {
  if (!file) return;
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(value, replacer));
  fs.renameSync(`${file}.tmp`, file);
}

/**
 * The failures a test asks a simulator for, each taking the next `count` calls (default 1), and the waits of the
 * "slow" ones, cut short when the simulator closes.
 */
export function createFailureQueue<F extends { count?: number }>() {
  const queue: { failure: F; remaining: number }[] = [];
  const timers = new Set<NodeJS.Timeout>();
  return {
    push(failure: F) {
      queue.push({ failure, remaining: failure.count ?? 1 });
    },
    /** The failure the call in hand takes, if any. */
    next(): F | undefined {
      const head = queue[0];
      if (!head) return undefined;
      head.remaining -= 1;
      if (head.remaining <= 0) queue.shift();
      return head.failure;
    },
    clear() {
      queue.length = 0;
    },
    wait: (ms: number) =>
      new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          timers.delete(t);
          resolve();
        }, ms);
        timers.add(t);
      }),
    /** Drops the waits still running (their calls never answer; the server is closing). */
    close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}
