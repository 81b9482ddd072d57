import os from 'node:os';
import type { Proxy, ProxyCheckResult, ProxyInput, ProxyListQuery } from '@fleetdesk/contract';
import type { Database } from '../../db/client.ts';
import type { Actor } from '../../http/context.ts';
import { NotFoundError, ValidationError } from '../../http/errors.ts';
import { assertCredentialDestinations } from '../../lib/credential-destinations.ts';
import { createCrudService } from '../../lib/crud-service.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { createRevealer, sealInput } from '../../lib/secrets.ts';
import type { UsageRegistry } from '../../lib/usage.ts';
import { checkProxy, type ProxyEndpoint } from '../../integrations/proxy/index.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { RegionsService } from '../regions/regions.service.ts';
import type { ProxiesRepository, ProxyRow, ProxyWrite } from './proxies.repository.ts';

export function createProxiesService(deps: {
  database: Database;
  audit: AuditService;
  usage: UsageRegistry;
  secrets: SecretBox;
  repo: ProxiesRepository;
  regions: RegionsService;
  checkUrl: string;
  checkTimeoutMs?: number;
  /** Names this process among those that saw a proxy fail. */
  processName?: string;
}) {
  const { database, audit, usage, secrets, repo } = deps;
  const processName = deps.processName ?? `${os.hostname()}:${process.pid}`;

  usage.register('regions', async (regionId, ex) => ({ what: 'proxies', ...(await repo.usageOfRegion(regionId, ex)) }));

  const toWrite = (input: Partial<ProxyInput>, current: Proxy | undefined): ProxyWrite => {
    const w: ProxyWrite = {};
    if (input.isHttps !== undefined) w.isHttps = input.isHttps;
    if (input.IPAddress !== undefined) w.ipAddress = input.IPAddress;
    if (input.httpPort !== undefined) w.httpPort = input.httpPort;
    if (input.username !== undefined) w.username = input.username;
    if (input.regionId !== undefined) w.regionId = input.regionId;
    if (input.proxyType !== undefined) w.proxyType = input.proxyType;
    const password = sealInput(secrets, input.password);
    if (password !== undefined) w.passwordEnc = password;
    // A changed endpoint invalidates the last check; re-saving the same values keeps it.
    const changed =
      password !== undefined ||
      (current &&
        ((w.isHttps !== undefined && w.isHttps !== current.isHttps) ||
          (w.ipAddress !== undefined && w.ipAddress !== current.IPAddress) ||
          (w.httpPort !== undefined && w.httpPort !== current.httpPort) ||
          (w.username !== undefined && w.username !== current.username) ||
          (w.proxyType !== undefined && w.proxyType !== current.proxyType)));
    if (current && changed) {
      Object.assign(w, { checkStatus: null, checkLatencyMs: null, checkError: null, checkedAt: null });
    }
    return w;
  };

  const crud = createCrudService<Proxy, ProxyInput, ProxyListQuery, ProxyWrite>({
    database,
    audit,
    usage,
    repo,
    entity: 'proxies',
    label: 'proxy',
    toWrite,
    validate: async (input, current, tx, actor) => {
      // The check and every call through the proxy send its stored password to its address and port, over TLS when
      // HTTPS is on (decision 058).
      if (current) {
        const destination = (
          field: 'IPAddress' | 'httpPort' | 'isHttps' | 'proxyType',
          label: string,
          next: unknown,
        ) => ({
          field,
          label,
          credentialField: 'password',
          credentialLabel: 'password',
          next,
          current: current[field],
          credentialGiven: input.password !== undefined,
          credentialStored: current.password !== null,
        });
        assertCredentialDestinations(actor, [
          destination('IPAddress', 'IP address', input.IPAddress),
          destination('httpPort', 'port', input.httpPort),
          // Turning HTTPS off sends the password in the clear; turning it on only adds TLS, so it is no move.
          destination('isHttps', 'HTTPS setting', input.isHttps === false ? false : undefined),
          // Another protocol to the same address: a SOCKS5 login is never encrypted, even where HTTPS was on.
          destination('proxyType', 'proxy type', input.proxyType),
        ]);
      }
      await deps.regions.assertExists(input.regionId, 'regionId', 'The region does not exist', tx);
    },
    snapshot: async (id, ex) => {
      const r = await repo.findRow(id, ex);
      return (
        r && {
          isHttps: r.isHttps,
          IPAddress: r.ipAddress,
          httpPort: r.httpPort,
          username: r.username,
          password: r.passwordEnc,
          regionId: r.regionId,
          proxyType: r.proxyType,
        }
      );
    },
  });

  /** The decrypted endpoint, or why it cannot be used. */
  const endpointOf = (r: ProxyRow): ProxyEndpoint => {
    const missing = [!r.ipAddress && 'IP Address', !r.httpPort && 'Port', !r.proxyType && 'Type'].filter(Boolean);
    if (missing.length) throw new ValidationError(`The proxy cannot be checked: ${missing.join(', ')} not set`);
    return {
      proxyType: r.proxyType!,
      isHttps: r.isHttps,
      IPAddress: r.ipAddress!,
      httpPort: r.httpPort!,
      username: r.username,
      password: r.passwordEnc ? secrets.decrypt(r.passwordEnc) : null,
    };
  };

  return {
    ...crud,
    reveal: createRevealer<ProxyRow>({
      database,
      audit,
      secrets,
      entity: 'proxies',
      label: 'proxy',
      load: (id, ex) => repo.findRow(id, ex),
      columns: { password: (r) => r.passwordEnc },
    }),
    /** Fetches the check URL through the proxy and records the outcome on the proxy. */
    async check(id: string, actor: Actor, opts: { audit?: boolean } = {}): Promise<ProxyCheckResult> {
      // The periodic proxy check keeps health current without an audit entry per proxy per period.
      const record: typeof audit.record = opts.audit === false ? async () => undefined : audit.record;
      const row = await repo.findRow(id);
      if (!row) throw new NotFoundError('Proxy not found');
      const result = await checkProxy(endpointOf(row), deps.checkUrl, { timeoutMs: deps.checkTimeoutMs ?? 10_000 });
      await database.db.transaction(async (tx) => {
        await repo.recordCheck(
          id,
          {
            ok: result.ok,
            latencyMs: result.latencyMs === null ? null : Math.round(result.latencyMs),
            error: result.error,
            checkedAt: result.checkedAt,
          },
          processName,
          tx,
        );
        await record(
          actor,
          {
            action: 'check',
            entity: 'proxies',
            entityId: id,
            details: { ok: result.ok, latencyMs: result.latencyMs, error: result.error },
          },
          tx,
        );
      });
      return {
        ok: result.ok,
        latencyMs: result.latencyMs === null ? null : Math.round(result.latencyMs),
        error: result.error,
        checkedAt: result.checkedAt.toISOString(),
      };
    },
    /**
     * Healthy-first endpoints of a region, for outbound calls that go through a proxy. When every proxy of the
     * region is marked failed, they are all tried anyway (issue 26): a mark is a guess about the future, and
     * trying costs less than refusing every call of the region until the next check.
     */
    async endpointsInRegion(regionId: string): Promise<(ProxyEndpoint & { proxyId: string; failed: boolean })[]> {
      let rows = await repo.findUsableInRegion(regionId);
      if (!rows.length) rows = await repo.findUsableInRegion(regionId, undefined, { includeFailed: true });
      return rows.map((r) => ({
        ...endpointOf(r),
        proxyId: r.id,
        failed: r.checkStatus === 'error' || r.checkFailures > 0,
      }));
    },
    /** A call through the proxy succeeded: whatever a check said, it works now (issue 26). */
    async markWorked(proxyId: string): Promise<void> {
      await repo.clearFailure(proxyId);
    },
  };
}
export type ProxiesService = ReturnType<typeof createProxiesService>;
