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

/** WAF: the domain's firewall rules pushed to the custom-rules entry point, and what a push would change. */
export function cloudFlareWaf(
  { cf, contextOf, forCloud, audited, pushRules }: CloudFlareCalls,
  deps: Pick<CloudFlareDeps, 'domains'>,
) {
  const { domains } = deps;
  return {
    /**
     * Writes the domain's WAF rules, ordered by priority, into the custom-rules entry point. The console marks
     * its rules (ref "fleetdesk:<ruleId>", description "[fleetdesk] <name>") and replaces only those: everyone
     * else's rules keep their place, and the console's block takes the place of its previous block (or goes last).
     */
    async updateFirewallRules(domainId: string, actor: Actor): Promise<UpdateFirewallRulesResult> {
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
        forCloud(ctx, async () => {
          let foreign: CfRule[] = [];
          const ruleset = await pushRules(ctx, WAF_PHASE, (existing) => {
            const byRef = new Map(existing.filter(isOwnRule).map((r) => [r.ref, r]));
            const own: CfRuleInput[] = rules.map((r) => {
              const ref = `${FLEETDESK_RULE_REF_PREFIX}${r.ruleId}`;
              const rule: CfRuleInput = {
                ref,
                action: r.action,
                expression: r.expression,
                description: `${FLEETDESK_RULE_DESCRIPTION_PREFIX}${r.ruleName}`,
                enabled: true,
              };
              // skip needs to say what it skips: the rest of this ruleset, as the old firewall rules did.
              if (r.action === 'skip') rule.action_parameters = { ruleset: 'current' };
              const previous = byRef.get(ref);
              if (previous) rule.id = previous.id;
              return rule;
            });
            const firstOwn = existing.findIndex(isOwnRule);
            foreign = existing.filter((r) => !isOwnRule(r));
            const before = firstOwn < 0 ? foreign : existing.slice(0, firstOwn).filter((r) => !isOwnRule(r));
            const after = firstOwn < 0 ? [] : existing.slice(firstOwn).filter((r) => !isOwnRule(r));
            return [...before, ...own, ...after];
          });
          const value = { cloudRulesetId: ruleset.id, preservedRules: foreign.length };
          return {
            value,
            answer: {
              rulesetId: ruleset.id,
              version: ruleset.version,
              rules: capList(ruleset.rules.map((r) => ({ id: r.id, ref: r.ref, action: r.action }))),
            },
          };
        }),
      );
      await domains.setCloudZone(domainId, { cloudRulesetId: out.cloudRulesetId }, actor);
      const kept = out.preservedRules ? `; kept ${plural(out.preservedRules, 'rule')} not made by the console` : '';
      return {
        cloudRulesetId: out.cloudRulesetId,
        rules,
        preservedRules: out.preservedRules,
        message: `Pushed ${plural(rules.length, 'firewall rule')} to Cloudflare${kept}`,
      };
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
      };
    },
  };
}
