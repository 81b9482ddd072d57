import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** How long the listener stays open at shutdown, answering 503, while keep-alive clients are told to go. */
const DRAIN_MS = 1_000;

/**
 * Graceful shutdown on SIGTERM/SIGINT: for a moment (DRAIN_MS) every request, on a kept-alive socket or a new
 * one, is answered 503 with `Connection: close`; then idle keep-alive sockets are closed (a FIN, not a reset),
 * then the listener (new connections are refused); let
 * requests and job steps in flight finish within `graceMs`, then cut what is left (jobs go back to the queue),
 * close the database, exit 0. A second signal changes nothing; a close hanging past the grace exits 1.
 */
/** What shutdown needs of the process: declared here so lib/ names nothing above it (the container fits). */
export type ShutdownTarget = {
  jobEngine: { stop(graceful: boolean, graceMs: number): Promise<unknown> };
  close(graceMs?: number): Promise<unknown>;
};

export function installGracefulShutdown(o: {
  app: FastifyInstance;
  c: ShutdownTarget;
  graceMs: number;
  /** Runs after the database closed (the demo's simulators). */
  after?: () => Promise<void>;
  exit?: (code: number) => void;
}) {
  const { app, c, graceMs } = o;
  const exit = o.exit ?? ((code: number) => process.exit(code));
  const log = app.log;
  // Node's server.close() destroys idle keep-alive sockets at once: a request already on its way to one is
  // then met by a TCP reset. Fastify answers 503 + Connection: close from the start of its close; its preClose
  // hooks run before the listener closes, so the drain happens there.
  const sockets = new Set<Socket>();
  const busy = new Set<Socket>();
  app.server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => {
      sockets.delete(s);
      busy.delete(s);
    });
  });
  app.server.on('request', (req, res) => {
    busy.add(req.socket);
    res.once('close', () => busy.delete(req.socket));
  });
  app.addHook('preClose', async () => {
    const wait = async (ms: number) => {
      const until = Date.now() + ms;
      while (sockets.size && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    };
    // A client under load sends its next request on its socket and is told 503 + close there (closing an idle
    // socket under it would lose that request); a socket still idle after the drain is then closed with a FIN
    // before the listener goes, rather than destroyed by it.
    await wait(Math.min(DRAIN_MS, graceMs));
    for (const s of sockets) if (!busy.has(s)) s.end();
    await wait(Math.min(200, graceMs));
  });
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal, graceSeconds: graceMs / 1000 }, 'shutting down');
    const hard = setTimeout(() => {
      log.error('shutdown did not finish in time; exiting');
      exit(1);
    }, graceMs + 15_000);
    hard.unref();
    const cut = setTimeout(() => app.server.closeAllConnections(), graceMs);
    cut.unref();
    await Promise.all([app.close(), c.jobEngine.stop(true, graceMs)]).catch((err) =>
      log.error({ err }, 'error while stopping'),
    );
    clearTimeout(cut);
    await c.close(0).catch(() => undefined);
    await o.after?.().catch(() => undefined);
    log.info('stopped');
    clearTimeout(hard);
    exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  return shutdown;
}
