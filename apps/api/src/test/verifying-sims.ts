import fs from 'node:fs';
import path from 'node:path';
import { startCloudflareSim, type CloudflareSim } from '@fleetdesk/simulators/cloudflare/index.ts';
import { startSshHost, type SshHost } from '@fleetdesk/simulators/ssh-host/index.ts';
import { cloudflareTxtLookup, directoryFileLookup } from '@fleetdesk/simulators/yandex-webmaster/index.ts';
import { generateKeyPair } from '../files/ssh/index.ts';
import { useTestApp } from './fixtures.ts';

/** A search engine's simulator that verifies sites by a TXT record or a file, as Yandex's and Google's do. */
interface VerifyingSim {
  setDnsTxtLookup(fn: (hostname: string) => string[] | Promise<string[]>): void;
  setFileLookup(fn: (hostname: string, fileName: string) => string | undefined | Promise<string | undefined>): void;
  close(): Promise<void>;
}

/**
 * A test app beside a Cloudflare simulator, an SSH host serving `/www`, and a search engine's simulator that reads
 * its verification records from that Cloudflare and its verification files from that host's site directories.
 */
export function useVerifyingSims<S extends VerifyingSim>(
  start: () => Promise<S>,
  env: (sims: { cf: CloudflareSim; engine: S }) => Record<string, string>,
) {
  const sims = { sshKey: generateKeyPair('ed25519') } as {
    cf: CloudflareSim;
    engine: S;
    sshHost: SshHost;
    sshKey: ReturnType<typeof generateKeyPair>;
  };
  const t = useTestApp(() => ({ CLOUDFLARE_API_URL: sims.cf.url, ...env(sims) }), {
    before: async () => {
      sims.cf = await startCloudflareSim();
      sims.engine = await start();
      sims.engine.setDnsTxtLookup(cloudflareTxtLookup(sims.cf));
      sims.sshHost = await startSshHost({ authorizedKeys: [sims.sshKey.publicLine] });
      fs.mkdirSync(path.join(sims.sshHost.rootDir, 'www'));
      sims.engine.setFileLookup(directoryFileLookup((hostname) => path.join(sims.sshHost.rootDir, 'www', hostname)));
    },
    after: () => Promise.all([sims.cf?.close(), sims.engine?.close(), sims.sshHost?.close()]),
  });
  return { t, sims };
}
