import type { DomainInput } from '@fleetdesk/contract';
import { serverFullMessage } from '../../domains/domains.service.ts';
import { already, done, linkTo, skipped, type Stage, type StagePlanContext, type StageRunContext } from './types.ts';

const sameSet = (a: string[], b: string[]) =>
  a.length === b.length &&
  [...a]
    .map((x) => x.toLowerCase())
    .sort()
    .join() ===
    [...b]
      .map((x) => x.toLowerCase())
      .sort()
      .join();

/** The launch's references, as the domain row takes them. */
const refsOf = (ctx: Pick<StagePlanContext, 'input'>) => ({
  serverId: ctx.input.serverId ?? null,
  brandId: ctx.input.brandId ?? null,
  cloudId: ctx.input.cloudId ?? null,
  domainRegistratorId: ctx.input.registration?.domainRegistratorId ?? null,
  yandexWebmasterAccountId: ctx.input.yandexWebmasterAccountId ?? null,
});

/** The references other than the server, as the plan names them. */
const REF_WORDS = {
  serverId: 'server',
  brandId: 'brand',
  cloudId: 'cloud account',
  domainRegistratorId: 'registrator',
  yandexWebmasterAccountId: 'Yandex Webmaster account',
} as const;

/** Server full: its count has reached its limit (0 is no limit), unless the domain is on it already. */
async function serverFull(ctx: StagePlanContext, currentServerId: string | null) {
  const id = ctx.input.serverId;
  if (!id || id === currentServerId) return null;
  const s = await ctx.deps.servers.get(id);
  return s.domainsLimitQty > 0 && s.domainsQty >= s.domainsLimitQty
    ? serverFullMessage(s.IPAddress, s.domainsQty, s.domainsLimitQty)
    : null;
}

/**
 * The domain stage's first half: the console's domain of that name, created with the launch's references when
 * there is none. Returns its id and whether it was created (the stage then says "Created").
 */
export async function ensureDomain(ctx: Omit<StageRunContext, 'domainId'>) {
  const id = (await ctx.deps.domains.idsByNames([ctx.domainName])).get(ctx.domainName);
  if (id) return { id, created: false };
  const parse = ctx.input.content.type === 'parse' ? ctx.input.content : null;
  const d = await ctx.deps.domains.create(
    {
      domainName: ctx.domainName,
      status: 'active',
      ...refsOf(ctx),
      ...(parse ? { parserURL: parse.url, parserProxyRegionId: parse.regionId ?? null } : {}),
    } as DomainInput,
    ctx.actor,
  );
  return { id: d._id, created: true };
}

/**
 * What the launch would set on a domain the console already holds: only fields it leaves empty, in words
 * ("its server to 127.0.0.1 (was none)"), and the patch that does it.
 */
async function changesOf(
  ctx: Pick<StagePlanContext, 'input' | 'deps'>,
  d: Pick<DomainInput, keyof ReturnType<typeof refsOf> | 'parserURL'>,
) {
  const refs = refsOf(ctx);
  const patch: Partial<DomainInput> = {};
  const words: string[] = [];
  for (const [k, v] of Object.entries(refs) as [keyof typeof refs, string | null][]) {
    if (!v || d[k]) continue;
    patch[k] = v;
    const what =
      k === 'serverId' ? `its server to ${(await ctx.deps.servers.get(v)).IPAddress}` : `its ${REF_WORDS[k]}`;
    words.push(`${what} (was none)`);
  }
  if (ctx.input.content.type === 'parse' && !d.parserURL) {
    patch.parserURL = ctx.input.content.url;
    patch.parserProxyRegionId = ctx.input.content.regionId ?? null;
    words.push(`its parser URL to ${ctx.input.content.url} (was none)`);
  }
  return { patch, words };
}

export const domainStage: Stage = {
  key: 'domain',
  async plan(ctx) {
    const id = (await ctx.deps.domains.idsByNames([ctx.domainName])).get(ctx.domainName);
    const current = id ? await ctx.deps.domains.get(id) : null;
    const full = await serverFull(ctx, current?.serverId ?? null);
    if (full) return { outcome: 'blocked', detail: full };
    if (current) {
      // What the launch would change on a domain the console already holds, said in the plan before Launch; the
      // launch then stops there until the operator confirms it (issue 40).
      const { words } = await changesOf(ctx, current);
      if (!words.length)
        return { outcome: 'done', detail: `Already a console domain: ${current.domainNameUnicode} is kept as it is` };
      return {
        outcome: 'confirm',
        detail: `Already a console domain: the launch will set ${words.join(', ')}; it stops here until you confirm`,
      };
    }
    return {
      outcome: 'run',
      detail: `Create ${ctx.domainName} in the console with the chosen server, brand and accounts`,
    };
  },
  async run(ctx) {
    const d = await ctx.deps.domains.get(ctx.domainId);
    // The domain was found or created before this stage ran (see the service); fill what it does not name yet,
    // once the operator has confirmed those changes to a domain the console already held.
    const { patch, words } = await changesOf(ctx, d);
    const links = [linkTo.domain(d._id)];
    if (!Object.keys(patch).length) return already(`${d.domainNameUnicode} is in the console`, links);
    if (!ctx.settingsConfirmed)
      return {
        state: 'needs_confirmation',
        detail: `${d.domainNameUnicode} is already a console domain: the launch will set ${words.join(', ')}. Confirm to change these settings`,
        links,
      };
    await ctx.deps.domains.update(d._id, patch as DomainInput, ctx.actor);
    return done(`${d.domainNameUnicode} is in the console; set ${words.join(', ')}`, links);
  },
};

export const registerStage: Stage = {
  key: 'register',
  async plan(ctx) {
    const r = ctx.input.registration;
    if (!r) return { outcome: 'skip', detail: 'No registrator chosen' };
    const info = await ctx.deps.registrar.inAccount(r.domainRegistratorId, ctx.domainName);
    if (info.inAccount)
      return {
        outcome: 'done',
        detail: `${ctx.domainName} is already registered in our registrator's account: registration skipped`,
      };
    // A name the console already holds is never bought as the routine step: that is a separate decision.
    if (r.register && (await ctx.deps.domains.idsByNames([ctx.domainName])).has(ctx.domainName))
      return {
        outcome: 'blocked',
        registerAlone: true,
        detail:
          `${ctx.domainName} is already a console domain, not at our registrator: registering would buy it. ` +
          'Register it on its own (after an availability check), or launch without registering',
      };
    if (!r.register)
      return { outcome: 'blocked', detail: `${ctx.domainName} is not in the registrator's account: ${info.message}` };
    const a = await ctx.deps.registrar.availability(r.domainRegistratorId, ctx.domainName);
    if (!a.available)
      return {
        outcome: 'blocked',
        detail: `${ctx.domainName} is not available at the registrar${a.description ? `: ${a.description}` : ''}`,
      };
    const price = await ctx.deps.registrar.registrationPrice(r.domainRegistratorId, ctx.domainName, r.years);
    const cost = price.cost ? `${price.cost.amount} ${price.cost.currency} at Namecheap's price` : price.priceError;
    const what = `Register ${ctx.domainName} for ${r.years} year${r.years === 1 ? '' : 's'} (this costs money: ${cost})`;
    return ctx.confirmCostly
      ? { outcome: 'run', detail: `${what}; confirmed up front` }
      : { outcome: 'confirm', detail: `${what}; the launch stops here until you confirm` };
  },
  async run(ctx) {
    const r = ctx.input.registration;
    if (!r) return skipped('No registrator chosen');
    const info = await ctx.deps.registrar.inAccount(r.domainRegistratorId, ctx.domainName);
    if (info.inAccount) return already(`${ctx.domainName} is in the registrator's account`);
    if (!r.register) throw new Error(`${ctx.domainName} is not in the registrator's account: ${info.message}`);
    if (!ctx.confirmed)
      return {
        state: 'needs_confirmation',
        detail: `Registering ${ctx.domainName} for ${r.years} year${r.years === 1 ? '' : 's'} costs money: confirm to go on`,
      };
    const res = await ctx.deps.registrar.register(ctx.domainId, r.contactId!, r.years, ctx.actor);
    if (!res.registered) throw new Error(`Namecheap did not register ${ctx.domainName}`);
    const charged = res.chargedAmount ? `, charged ${res.chargedAmount}` : '';
    return done(`Registered ${res.domainName} (order ${res.orderId}${charged})`);
  },
};

export const nameServersStage: Stage = {
  key: 'name-servers',
  async plan(ctx) {
    if (!ctx.input.registration) return { outcome: 'skip', detail: 'No registrator chosen' };
    if (!ctx.input.cloudId) return { outcome: 'skip', detail: 'No cloud account chosen' };
    return { outcome: 'run', detail: "Point the name's name servers at the Cloudflare zone's" };
  },
  async run(ctx) {
    if (!ctx.input.registration) return skipped('No registrator chosen');
    if (!ctx.input.cloudId) return skipped('No cloud account chosen');
    const d = await ctx.deps.domains.get(ctx.domainId);
    if (!d.cloudZoneId) throw new Error('The domain has no Cloudflare zone yet');
    const [state, zone] = await Promise.all([
      ctx.deps.registrar.domainState(ctx.domainId),
      ctx.deps.cloudFlare.zoneStatus(ctx.domainId, ctx.actor),
    ]);
    if (zone.nameServers.length && sameSet(state.nameServers, zone.nameServers))
      return already(`the registrar points at ${zone.nameServers.join(', ')}`);
    const r = await ctx.deps.registrar.setNameServers(ctx.domainId, ctx.actor);
    return done(`Name servers set to ${r.after.join(', ')}`);
  },
};
