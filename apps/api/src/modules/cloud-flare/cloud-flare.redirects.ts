import { DEFAULT_REDIRECT_STATUS_CODE, type RedirectRules, type RedirectRulesResult } from '@fleetdesk/contract';
import type { Actor } from '../../http/context.ts';
import type { CfRule, CfRuleInput } from '../../integrations/cloudflare/index.ts';
import { REDIRECT_PHASE, capList, type CloudFlareCalls, type DomainRef } from './cloud-flare.context.ts';

type RedirectOut = RedirectRulesResult['rules'][number];

/** A Cloudflare redirect rule as the editor's row; null when it is not a single redirect the editor can show. */
function redirectOf(rule: CfRule): RedirectOut | null {
  if (rule.action !== 'redirect') return null;
  const from = (rule.action_parameters as { from_value?: Record<string, unknown> } | undefined)?.from_value;
  const target = from?.target_url as { value?: unknown; expression?: unknown } | undefined;
  if (!from || !target) return null;
  const out: RedirectOut = {
    id: rule.id,
    description: rule.description ?? '',
    enabled: rule.enabled,
    ruleExpression: rule.expression,
    statusCode: typeof from.status_code === 'number' ? from.status_code : DEFAULT_REDIRECT_STATUS_CODE,
    preserveQueryString: from.preserve_query_string === true,
  };
  if (typeof target.value === 'string') out.targetUrlValue = target.value;
  else if (typeof target.expression === 'string') out.targetUrlExpression = target.expression;
  else return null;
  return out;
}

/** Redirects: the zone's single redirects as the editor's rows. */
export function cloudFlareRedirects({ cf, contextOf, forCloud, audited, pushRules }: CloudFlareCalls) {
  return {
    async getRedirectRules(domainId: DomainRef, actor?: Actor): Promise<RedirectRulesResult> {
      const ctx = await contextOf(domainId, true, actor);
      const rs = await forCloud(ctx, () => cf.getEntrypointRuleset(ctx.creds, ctx.zoneId, REDIRECT_PHASE));
      return { rules: (rs?.rules ?? []).map(redirectOf).filter((r): r is RedirectOut => r !== null) };
    },

    /** Replaces the single redirects of the zone with the editor's rows; rules the editor cannot show are kept. */
    async setRedirectRules(domainId: string, input: RedirectRules, actor: Actor): Promise<RedirectRulesResult> {
      const ctx = await contextOf(domainId, true, actor);
      const sent = { zoneId: ctx.zoneId, phase: REDIRECT_PHASE, rules: input.rules };
      return audited(actor, ctx, 'set_redirect_rules', sent, () =>
        forCloud(ctx, async () => {
          // The shown rules as they were just before the write (the last read of the push wins): kept for undo.
          let before: RedirectOut[] = [];
          const ruleset = await pushRules(ctx, REDIRECT_PHASE, (existing) => {
            before = existing.map(redirectOf).filter((r): r is RedirectOut => r !== null);
            const known = new Set(existing.map((r) => r.id));
            const rows: CfRuleInput[] = input.rules.map((r) => {
              const target =
                r.targetUrlValue !== undefined ? { value: r.targetUrlValue } : { expression: r.targetUrlExpression };
              const rule: CfRuleInput = {
                action: 'redirect',
                expression: r.ruleExpression,
                description: r.description ?? '',
                enabled: r.enabled ?? true,
                action_parameters: {
                  from_value: {
                    target_url: target,
                    status_code: r.statusCode,
                    preserve_query_string: r.preserveQueryString,
                  },
                },
              };
              // An id Cloudflare no longer has would fail the whole write: such a row becomes a new rule.
              if (r.id && known.has(r.id)) rule.id = r.id;
              return rule;
            });
            // Rules the editor cannot show keep their place: each shown rule's slot takes the editor's next row,
            // and rows beyond the old count go after the last shown rule (or last, when there was none).
            const out: CfRuleInput[] = [];
            let next = 0;
            let lastShown = -1;
            for (const r of existing) {
              if (redirectOf(r) === null) out.push(r);
              else {
                const row = rows[next++];
                if (row) out.push(row);
                lastShown = out.length - 1;
              }
            }
            const rest = rows.slice(next);
            if (lastShown < 0) out.push(...rest);
            else out.splice(lastShown + 1, 0, ...rest);
            return out;
          });
          const value = {
            rules: ruleset.rules.map(redirectOf).filter((r): r is RedirectOut => r !== null),
          };
          return {
            value,
            answer: { rulesetId: ruleset.id, version: ruleset.version, rules: capList(value.rules) },
            extra: { undo: [{ area: 'redirects', before, after: value.rules }] },
          };
        }),
      );
    },
  };
}
