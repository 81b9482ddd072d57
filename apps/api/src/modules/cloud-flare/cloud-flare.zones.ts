import {
  CLOUD_ZONE_EXISTS_CODE,
  CLOUD_ZONES_PAGE_SIZE,
  type CloudZoneInfo,
  type CloudZoneList,
  type CloudZonesQuery,
  type CreateZoneResult,
} from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import { AppError, ConflictError, UpstreamError, ValidationError } from '../../http/errors.ts';
import type { CfZone } from '../../integrations/cloudflare/index.ts';
import { CLOUD_FLARE_TEXT, type CloudFlareCalls, type CloudFlareDeps, type Ctx } from './cloud-flare.context.ts';

/** Zones: the account's zones, the domain's zone (info, status), create, delete, link and unlink. */
export function cloudFlareZones(
  { cf, cloudOf, contextOf, forCloud, accountIdOf, audited }: CloudFlareCalls,
  deps: Pick<CloudFlareDeps, 'domains'>,
) {
  const { domains } = deps;
  const zoneResult = (z: { id: string; name: string; name_servers: string[]; status: string }) => ({
    id: z.id,
    name: z.name,
    name_servers: z.name_servers,
    status: z.status,
  });

  /**
   * The one listing of a cloud account's zones: one page with a name search (the Link Zone picker), or every
   * zone, page after page to the end (the imports, decision 043).
   */
  const accountZones = (
    ctx: Pick<Ctx, 'creds' | 'cloudId' | 'actor' | 'proxyRegionId'>,
    page?: { search?: string; page: number },
  ): Promise<{ zones: CfZone[]; totalCount: number }> =>
    forCloud(ctx, async () => {
      const accountId = await accountIdOf(ctx);
      if (page) {
        return cf.listZonesPage(ctx.creds, {
          search: page.search,
          page: page.page,
          perPage: CLOUD_ZONES_PAGE_SIZE,
          accountId,
        });
      }
      const zones = await cf.listZones({ ...ctx.creds, accountId }, { accountId });
      return { zones, totalCount: zones.length };
    });

  return {
    /** Every zone of the cloud's account (the imports). */
    async listCloudZones(cloudId: string, actor?: Actor) {
      const ctx = await cloudOf(cloudId, actor);
      const { zones } = await accountZones(ctx);
      return { email: ctx.cloudEmail, zones: zones.map(zoneResult) };
    },

    async zoneInfo(domainId: string, actor?: Actor): Promise<CloudZoneInfo> {
      const ctx = await contextOf(domainId, true, actor);
      try {
        const zone = await forCloud(ctx, () => cf.getZone(ctx.creds, ctx.zoneId));
        return { data: { result: zoneResult(zone) } };
      } catch (err) {
        if (err instanceof AppError) return { errorMessage: err.message, data: { result: null } };
        throw err;
      }
    },

    /** A page of the zones of the domain's cloud account, each marked with the other domain linked to it. */
    async listZones(domainId: string, q: CloudZonesQuery, actor: Actor): Promise<CloudZoneList> {
      const ctx = await contextOf(domainId, false, actor);
      const { zones, totalCount } = await accountZones(ctx, { search: q.search, page: q.page });
      const linked = await domains.byZoneIds(zones.map((z) => z.id));
      const byZone = new Map(linked.filter((d) => d._id !== domainId).map((d) => [d.cloudZoneId, d]));
      return {
        items: zones.map((z) => {
          const other = byZone.get(z.id);
          return {
            id: z.id,
            name: z.name,
            status: z.status,
            plan: z.plan?.name ?? null,
            linkedDomain: other ? { _id: other._id, domainName: other.domainName } : null,
          };
        }),
        totalCount,
        page: q.page,
        pageSize: CLOUD_ZONES_PAGE_SIZE,
      };
    },

    async createZone(domainId: string, actor: Actor): Promise<CreateZoneResult> {
      const ctx = await contextOf(domainId, false, actor);
      if (ctx.zoneId)
        throw new ConflictError(CLOUD_FLARE_TEXT.zoneAlreadySet(ctx.zoneId), undefined, 'zone_already_set');
      const name = ctx.domain.domainName;
      const zone = await audited(actor, ctx, 'create_zone', { name, type: 'full' }, () =>
        forCloud(ctx, async () => {
          const accountId = await accountIdOf(ctx);
          try {
            const z = await cf.createZone(ctx.creds, name);
            return { value: z, answer: zoneResult(z) };
          } catch (err) {
            if (!(err instanceof UpstreamError) || err.upstreamCode !== 1061) throw err;
            // 1061: the name is taken. In this account, the operator can link the zone instead.
            const existing = await cf.findZoneByName({ ...ctx.creds, accountId }, name);
            if (!existing) throw err;
            throw new ConflictError(
              CLOUD_FLARE_TEXT.zoneExists(name, existing.id),
              { cloudZoneId: existing.id },
              CLOUD_ZONE_EXISTS_CODE,
            );
          }
        }),
      );
      await domains.setCloudZone(domainId, { cloudZoneId: zone.id, cloudRulesetId: null }, actor);
      return { cloudZoneId: zone.id, name: zone.name, status: zone.status, nameServers: zone.name_servers };
    },

    async deleteZone(domainId: string, actor: Actor) {
      const ctx = await contextOf(domainId, true, actor);
      await audited(actor, ctx, 'delete_zone', { zoneId: ctx.zoneId }, () =>
        forCloud(ctx, async () => {
          const answer = await cf.deleteZone(ctx.creds, ctx.zoneId);
          return { value: answer, answer };
        }),
      );
      const d = await domains.setCloudZone(domainId, { cloudZoneId: null, cloudRulesetId: null }, actor);
      return { cloudZoneId: d.cloudZoneId, cloudRulesetId: d.cloudRulesetId };
    },

    /** Checks that the zone is in the cloud's account and is the domain's, then stores it; 400 says which check failed. */
    async linkZone(domainId: string, cloudZoneId: string, actor: Actor) {
      const ctx = await contextOf(domainId, false, actor);
      const name = ctx.domain.domainName;
      const refuse = (message: string) => new ValidationError(message, { cloudZoneId: message }, 'zone_link_refused');
      await audited(actor, ctx, 'link_zone', { zoneId: cloudZoneId }, () =>
        forCloud(ctx, async () => {
          // Proves the credentials first, so a refusal below is about the zone, not about a bad key.
          const accountId = await accountIdOf(ctx);
          let zone;
          try {
            zone = await cf.getZone(ctx.creds, cloudZoneId);
          } catch (err) {
            const missing =
              err instanceof UpstreamError &&
              (err.upstreamStatus === 404 || err.upstreamStatus === 403 || err.code === 'upstream_auth_failed');
            if (!missing) throw err;
            const own = await cf.findZoneByName({ ...ctx.creds, accountId }, name);
            throw refuse(
              own
                ? CLOUD_FLARE_TEXT.zoneNotInAccountHint(cloudZoneId, ctx.cloudEmail, name, own.id)
                : CLOUD_FLARE_TEXT.zoneNotInAccount(cloudZoneId, ctx.cloudEmail),
            );
          }
          if (zone.account?.id && zone.account.id !== accountId) {
            throw refuse(CLOUD_FLARE_TEXT.zoneOtherAccount(cloudZoneId, ctx.cloudEmail));
          }
          if (zone.name.toLowerCase() !== name.toLowerCase()) {
            throw refuse(CLOUD_FLARE_TEXT.zoneNameMismatch(cloudZoneId, zone.name, name));
          }
          return { value: zone, answer: zoneResult(zone) };
        }),
      );
      const sameZone = ctx.domain.cloudZoneId === cloudZoneId;
      const d = await domains.setCloudZone(
        domainId,
        { cloudZoneId, cloudRulesetId: sameZone ? ctx.domain.cloudRulesetId : null },
        actor,
      );
      return { cloudZoneId: d.cloudZoneId, cloudRulesetId: d.cloudRulesetId };
    },

    /** Forgets the zone; it stays at Cloudflare. */
    async unlinkZone(domainId: string, actor: Actor) {
      const ctx = await contextOf(domainId, true, actor);
      const d = await audited(
        actor,
        ctx,
        'unlink_zone',
        { zoneId: ctx.zoneId, cloudRulesetId: ctx.domain.cloudRulesetId },
        async () => {
          const value = await domains.setCloudZone(domainId, { cloudZoneId: null, cloudRulesetId: null }, actor);
          return { value, answer: null };
        },
      );
      return { cloudZoneId: d.cloudZoneId, cloudRulesetId: d.cloudRulesetId };
    },

    /** The zone's status and dates (the health check: pending for more than a day is failing). */
    async zoneStatus(domainId: string, actor?: Actor) {
      const ctx = await contextOf(domainId, true, actor);
      const z = await forCloud(ctx, () => cf.getZone(ctx.creds, ctx.zoneId));
      return { status: z.status, nameServers: z.name_servers, createdOn: z.created_on, activatedOn: z.activated_on };
    },
  };
}
