import {
  FLEETDESK_RULE_DESCRIPTION_PREFIX,
  FLEETDESK_RULE_REF_PREFIX,
  type UpdateFirewallRulesResult,
} from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import { ValidationError } from '../../http/errors.ts';
import type { CfRule, CfRuleInput } from '../../integrations/cloudflare/index.ts';
import {
  CLOUD_FLARE_TEXT,
  WAF_PHASE,
  capList,
  isOwnRule,
  plural,
  type CloudFlareCalls,
  type CloudFlareDeps,
  type DomainRef,
} from './cloud-flare.context.ts';

/** One of the console's rules in the zone, as a revert puts it back (its id is Cloudflare's, and is not kept). */
export type WafRule = {
  ref: string;
  action: string;
  expression: string;
  description: string;
  enabled: boolean;
  action_parameters?: Record<string, unknown>;
};
export type WafUndo = { area: 'waf'; before: WafRule[]; after: WafRule[] };
const wafRuleOf = (r: CfRule): WafRule => ({
  ref: r.ref,
  action: r.action,
  expression: r.expression,
  description: r.description ?? '',
  enabled: r.enabled,
  ...(r.action_parameters ? { action_parameters: r.action_parameters } : {}),
});

/** WAF: the domain's firewall rules pushed to the custom-rules entry point, and what a push would change. */
export function cloudFlareWaf(
  { cf, contextOf, forCloud, audited, pushRules }: CloudFlareCalls,
  deps: Pick<CloudFlareDeps, 'domains'>,
) {
  const { domains } = deps;

  /**
   * Replaces the console's block of the zone's custom rules with `build(existing)`'s rules: the others keep their
   * place, and the block takes the place of the previous one (or goes last). Answers the block before and after.
   */
  const replaceOwn = async (
    ctx: Parameters<typeof pushRules>[0],
    build: (byRef: Map<string, CfRule>) => CfRuleInput[],
  ) => {
    let foreign: CfRule[] = [];
    let before: WafRule[] = [];
    const ruleset = await pushRules(ctx, WAF_PHASE, (existing) => {
      const byRef = new Map(existing.filter(isOwnRule).map((r) => [r.ref, r]));
      before = existing.filter(isOwnRule).map(wafRuleOf);
      const own = build(byRef).map((r) => {
        const previous = r.ref ? byRef.get(r.ref) : undefined;
        return previous ? { ...r, id: previous.id } : r;
      });
      const firstOwn = existing.findIndex(isOwnRule);
      foreign = existing.filter((r) => !isOwnRule(r));
      const head = firstOwn < 0 ? foreign : existing.slice(0, firstOwn).filter((r) => !isOwnRule(r));
      const tail = firstOwn < 0 ? [] : existing.slice(firstOwn).filter((r) => !isOwnRule(r));
      return [...head, ...own, ...tail];
    });
    const after = ruleset.rules.filter(isOwnRule).map(wafRuleOf);
    const undo: WafUndo = { area: 'waf', before, after };
    return {
      value: { rulesetId: ruleset.id, preservedRules: foreign.length, undo },
      answer: {
        rulesetId: ruleset.id,
        version: ruleset.version,
        rules: capList(ruleset.rules.map((r) => ({ id: r.id, ref: r.ref, action: r.action }))),
      },
      extra: { undo: [undo] },
    };
  };

  async function pushFirewallRules(
    domainId: string,
    actor: Actor,
  ): Promise<{ result: UpdateFirewallRulesResult; undo: WafUndo }> {
    const ctx = await contextOf(domainId, true, actor);
    const saved = await domains.getFirewallRules(domainId);
    // Lower priority first; equal priorities keep the saved order (the sort is stable).
    const ordered = [...saved].sort((a, b) => a.priority - b.priority);
    const empty = ordered.filter((r) => !r.expression.trim());
    if (empty.length) {
      throw new ValidationError(
        CLOUD_FLARE_TEXT.emptyExpression(empty.map((r) => r.ruleName)),
        undefined,
        'rule_expression_missing',
      );
    }
    const rules = ordered.map((r) => ({
      ruleId: r.ruleId,
      ruleName: r.ruleName,
      action: r.action,
      expression: r.expression,
      priority: r.priority,
    }));
    const sent = { zoneId: ctx.zoneId, phase: WAF_PHASE, rules };
    const out = await audited(actor, ctx, 'update_firewall_rules', sent, () =>
      forCloud(ctx, () =>
        replaceOwn(ctx, () =>
          rules.map((r) => {
            const rule: CfRuleInput = {
              ref: `${FLEETDESK_RULE_REF_PREFIX}${r.ruleId}`,
              action: r.action,
              expression: r.expression,
              description: `${FLEETDESK_RULE_DESCRIPTION_PREFIX}${r.ruleName}`,
              enabled: true,
            };
            // skip needs to say what it skips: the rest of this ruleset, as the old firewall rules did.
            if (r.action === 'skip') rule.action_parameters = { ruleset: 'current' };
            return rule;
          }),
        ),
      ),
    );
    await domains.setCloudZone(domainId, { cloudRulesetId: out.rulesetId }, actor);
    const kept = out.preservedRules ? `; kept ${plural(out.preservedRules, 'rule')} not made by the console` : '';
    return {
      result: {
        cloudRulesetId: out.rulesetId,
        rules,
        preservedRules: out.preservedRules,
        message: `Pushed ${plural(rules.length, 'firewall rule')} to Cloudflare${kept}`,
      },
      undo: out.undo,
    };
  }

  return {
    /**
     * Writes the domain's WAF rules, ordered by priority, into the custom-rules entry point. The console marks
     * its rules (ref "fleetdesk:<ruleId>", description "[fleetdesk] <name>") and replaces only those: everyone
     * else's rules keep their place, and the console's block takes the place of its previous block (or goes last).
     */
    async updateFirewallRules(domainId: string, actor: Actor): Promise<UpdateFirewallRulesResult> {
      return (await pushFirewallRules(domainId, actor)).result;
    },

    /** The push, with the console's rules in the zone before and after it (a fleet step records them for undo). */
    pushFirewallRules,

    /**
     * Puts the console's block of the zone's custom rules back as a revert recorded it (others' rules keep their
     * place, as in a push); audited as a push, with its own undo.
     */
    async setOwnFirewallRules(domainId: string, rules: WafRule[], actor: Actor): Promise<WafUndo> {
      const ctx = await contextOf(domainId, true, actor);
      const sent = { zoneId: ctx.zoneId, phase: WAF_PHASE, rules, revert: true };
      const out = await audited(actor, ctx, 'update_firewall_rules', sent, () =>
        forCloud(ctx, () => replaceOwn(ctx, () => rules.map((r) => ({ ...r })))),
      );
      await domains.setCloudZone(domainId, { cloudRulesetId: out.rulesetId }, actor);
      return out.undo;
    },
    /**
     * What a push would change (fleet plans): the console's rules now in the zone against the domain's saved
     * rules, compared by ref, action and expression in order.
     */
    async firewallRulesState(domainId: DomainRef, actor?: Actor) {
      const ctx = await contextOf(domainId, true, actor);
      const saved = [...(await domains.getFirewallRules(ctx.domain._id))].sort((a, b) => a.priority - b.priority);
      const rs = await forCloud(ctx, () => cf.getEntrypointRuleset(ctx.creds, ctx.zoneId, WAF_PHASE));
      const inZone = (rs?.rules ?? []).filter(isOwnRule).map((r) => `${r.ref}|${r.action}|${r.expression}`);
      const wanted = saved.map((r) => `${FLEETDESK_RULE_REF_PREFIX}${r.ruleId}|${r.action}|${r.expression}`);
      const show = (r: { action: string; expression: string }) => `${r.action}: ${r.expression}`;
      return {
        saved: saved.length,
        inZone: inZone.length,
        matches: inZone.length === wanted.length && inZone.every((x, i) => x === wanted[i]),
        version: rs?.version ?? null,
        // For the health check: what the console's rules are in the zone and should be, and the others' count.
        ownRules: (rs?.rules ?? []).filter(isOwnRule).map(show),
        savedRules: saved.map(show),
        foreign: (rs?.rules ?? []).filter((r) => !isOwnRule(r)).length,
        // As a revert compares and puts them back (fleet.revert.ts).
        ownWafRules: (rs?.rules ?? []).filter(isOwnRule).map(wafRuleOf),
      };
    },
  };
}
