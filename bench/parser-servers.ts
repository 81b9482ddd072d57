/**
 * One server of `bench:parser` in a process of its own: the site, the HTTP test proxy or the SSH test host. In
 * production they are other machines; run in the benchmark's process they would share its one thread with the
 * parser it measures (and not with wget or wget2, which run apart), and a proxy sharing the site's thread would
 * slow every answer that goes through it. Started by parser.bench.ts with fork(), one per server: it answers its
 * address, then its counts when asked, and closes when told to.
 */
import { startForwardProxy } from '../packages/simulators/src/proxy/index.ts';
import { generatedSite, startSiteServer } from '../packages/simulators/src/site/index.ts';
import { startSshHost } from '../packages/simulators/src/ssh-host/index.ts';

export type ServerSetup =
  { role: 'site'; pages: number; delay: number } | { role: 'proxy' } | { role: 'ssh'; publicLine: string };
export type ServerReady = { url: string; port: number; rootDir: string };

const send = (m: unknown) => process.send?.(m);
process.once('message', async (setup: ServerSetup) => {
  let ready: ServerReady;
  let close: () => Promise<void>;
  let count = () => 0;
  if (setup.role === 'site') {
    const site = await startSiteServer({ routes: generatedSite(setup.pages, 10), delayMs: setup.delay });
    ready = { url: site.url, port: Number(new URL(site.url).port), rootDir: '' };
    close = () => site.close();
  } else if (setup.role === 'proxy') {
    const proxy = await startForwardProxy({ kind: 'http', username: 'bench', password: 'bench' });
    ready = { url: '', port: proxy.port, rootDir: '' };
    close = () => proxy.close();
    count = () => proxy.requests;
  } else {
    const host = await startSshHost({ authorizedKeys: [setup.publicLine] });
    ready = { url: '', port: host.port, rootDir: host.rootDir };
    close = () => host.close();
  }
  process.on('message', async (m: string) => {
    if (m === 'count') send({ count: count() });
    if (m === 'close') {
      await close();
      process.exit(0);
    }
  });
  send(ready);
});
// The benchmark went away: nothing to serve.
process.on('disconnect', () => process.exit(0));
