import type { FastifyInstance } from 'fastify';

/**
 * Graceful shutdown on SIGTERM/SIGINT: stop accepting connections (keep-alive sockets get 503 and close), let
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
