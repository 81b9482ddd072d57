import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '@fleetdesk/contract';
import { startCloudflareSim, type CloudflareSim } from '@fleetdesk/simulators/cloudflare/index.ts';
import { unzipSync } from 'fflate';
import { sql } from 'drizzle-orm';
import { namedCheckzone } from '../../test/bind-tools.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';

// A selection's zone files as a zip, made by a job (the real engine) against the Cloudflare simulator.
let sim: CloudflareSim;
let t: TestApp;
let h: string;
let seq = 0;

beforeAll(async () => {
  sim = await startCloudflareSim();
  t = await createTestApp(
    { CLOUDFLARE_API_URL: sim.url, CLOUDFLARE_TIMEOUT_SECONDS: '5' },
    { jobOptions: { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1, progressThrottleMs: 0 } },
  );
  await t.c.startJobs({ periodic: false });
  h = await t.tokenFor(['cnv']);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

const unique = (prefix: string) => `${prefix}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;
const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
  t.inject({ method, url, headers: { authorization: h }, payload });

describe('zone files of a selection', () => {
  it('zips every zone, lists the ones it could not read, and serves the zip once the job is done', async () => {
    const email = `${unique('ops')}@example.com`;
    const token = `${unique('tok')}-0123456789abcdef`;
    sim.addAccount({ email, token });
    const cloud = (await call('POST', '/api/clouds', { email, token })).json().data._id as string;
    const ids: string[] = [];
    const names: string[] = [];
    for (let i = 0; i < 3; i++) {
      const name = `${unique('zip')}.com`;
      const d = (await call('POST', '/api/domains', { domainName: name, status: 'active', cloudId: cloud })).json()
        .data;
      if (i < 2) expect((await call('POST', `/api/domains/${d._id}/cloud-flare/create-zone`)).statusCode).toBe(200);
      ids.push(d._id);
      names.push(name);
    }
    const res = await call('POST', '/api/zone-files/exports', { selection: { ids } });
    expect(res.statusCode, res.body).toBe(201);
    const jobId = res.json().data.jobId as string;
    const early = await call('GET', `/api/zone-files/exports/${jobId}`);
    expect([200, 404]).toContain(early.statusCode);
    const job = (await t.c.jobEngine.waitFor(jobId, 60_000)) as unknown as Job;
    expect(job.state).toBe('completed');
    expect(job.result).toMatchObject({ zones: 2, failedCount: 1, failed: [{ domain: names[2] }] });
    const zip = await call('GET', `/api/zone-files/exports/${jobId}`);
    expect(zip.statusCode).toBe(200);
    expect(zip.headers['content-type']).toBe('application/zip');
    const bytes = zip.rawPayload;
    expect(bytes.subarray(0, 2).toString()).toBe('PK');
    const text = bytes.toString('latin1');
    expect(text).toContain(`${names[0]}.txt`);
    expect(text).toContain(`${names[1]}.txt`);
    expect(text).toContain('FAILED.txt');
    // Every zone file in the zip is one BIND takes (named-checkzone).
    const files = unzipSync(new Uint8Array(bytes));
    for (const name of names.slice(0, 2)) {
      const zoneText = Buffer.from(files[`${name}.txt`]!).toString('utf8');
      const verdict = namedCheckzone(name, zoneText);
      if (verdict) expect(verdict.ok, verdict.out).toBe(true);
    }
  }, 90_000);

  it('refuses a selection with no zone at all, and fails (offering no zip) when every zone fails', async () => {
    const email = `${unique('ops')}@example.com`;
    const token = `${unique('tok')}-0123456789abcdef`;
    sim.addAccount({ email, token });
    const cloud = (await call('POST', '/api/clouds', { email, token })).json().data._id as string;
    const bare: string[] = [];
    for (let i = 0; i < 2; i++)
      bare.push(
        (
          await call('POST', '/api/domains', { domainName: `${unique('bare')}.com`, status: 'active', cloudId: cloud })
        ).json().data._id,
      );
    const refused = await call('POST', '/api/zone-files/exports', { selection: { ids: bare } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toBe('Select at least one domain with a Cloudflare zone');

    // Two zones that Cloudflare no longer has: nothing to zip.
    const gone: string[] = [];
    for (let i = 0; i < 2; i++) {
      const d = (
        await call('POST', '/api/domains', { domainName: `${unique('gone')}.com`, status: 'active', cloudId: cloud })
      ).json().data;
      expect((await call('POST', `/api/domains/${d._id}/cloud-flare/create-zone`)).statusCode).toBe(200);
      await t.c.database.db.execute(
        sql`UPDATE domains SET cloud_zone_id = ${'0'.repeat(31) + String(i)} WHERE id = ${d._id}`,
      );
      gone.push(d._id);
    }
    const res = await call('POST', '/api/zone-files/exports', { selection: { ids: gone } });
    expect(res.statusCode, res.body).toBe(201);
    const jobId = res.json().data.jobId as string;
    const job = (await t.c.jobEngine.waitFor(jobId, 60_000)) as unknown as Job;
    expect(job.state).toBe('failed');
    expect(job.error).toMatch(/^No zone file exported: every zone failed; the first, gone-/);
    expect((await call('GET', `/api/zone-files/exports/${jobId}`)).statusCode).toBe(404);
  }, 90_000);

  it('refuses an empty selection and one that is too large', async () => {
    const none = await call('POST', '/api/zone-files/exports', { selection: { ids: [] } });
    expect(none.statusCode).toBe(400);
    const missing = await call('GET', '/api/zone-files/exports/00000000-0000-4000-8000-000000000000');
    expect(missing.statusCode).toBe(404);
  });
});
