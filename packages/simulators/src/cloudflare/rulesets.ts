import { cfErrors } from './envelope.ts';
import { ID_RE, newId, nowIso, type SimRule, type SimRuleset, type SimZone } from './sim-state.ts';

/** The phases of the 2024 schema's `rulesets_RulesetPhase`; any other phase is not a route. */
export const RULESET_PHASES = new Set([
  'ddos_l4',
  'ddos_l7',
  'http_config_settings',
  'http_custom_errors',
  'http_log_custom_fields',
  'http_ratelimit',
  'http_request_cache_settings',
  'http_request_dynamic_redirect',
  'http_request_firewall_custom',
  'http_request_firewall_managed',
  'http_request_late_transform',
  'http_request_origin',
  'http_request_redirect',
  'http_request_sanitize',
  'http_request_sbfm',
  'http_request_select_configuration',
  'http_request_transform',
  'http_response_compression',
  'http_response_firewall_managed',
  'http_response_headers_transform',
  'magic_transit',
  'magic_transit_ids_managed',
  'magic_transit_managed',
]);

// Actions the console may write per phase; other phases keep whatever action was sent.
const PHASE_ACTIONS: Record<string, string[]> = {
  http_request_firewall_custom: ['block', 'challenge', 'js_challenge', 'managed_challenge', 'skip', 'log'],
  http_request_dynamic_redirect: ['redirect'],
};
/** The fields a rule may carry in a write; anything else is refused, as the real API does. */
const RULE_FIELDS = new Set([
  'id',
  'ref',
  'action',
  'expression',
  'description',
  'enabled',
  'action_parameters',
  'logging',
  'ratelimit',
  'exposed_credential_check',
]);
const SKIP_PRODUCTS = ['bic', 'hot', 'rateLimit', 'securityLevel', 'uaBlock', 'waf', 'zoneLockdown'];
const REDIRECT_CODES = [301, 302, 303, 307, 308];

export function rulesetJson(rs: SimRuleset, withRules = true): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: rs.id,
    name: rs.name,
    description: rs.description,
    kind: 'zone',
    phase: rs.phase,
    version: String(rs.version),
    last_updated: rs.lastUpdated,
  };
  if (withRules) out.rules = rs.rules.map(ruleJson);
  return out;
}

function ruleJson(r: SimRule): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: r.id,
    version: r.version,
    action: r.action,
    expression: r.expression,
    description: r.description,
    last_updated: r.lastUpdated,
    ref: r.ref,
    enabled: r.enabled,
  };
  if (r.actionParameters) out.action_parameters = r.actionParameters;
  if (r.logging) out.logging = r.logging;
  if (r.ratelimit) out.ratelimit = r.ratelimit;
  if (r.exposedCredentialCheck) out.exposed_credential_check = r.exposedCredentialCheck;
  return out;
}

/** A light syntax check: Cloudflare parses the rules language; the simulator only catches unbalanced input. */
function expressionError(expr: string): string | null {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === '(' || c === '{') depth++;
    else if (c === ')' || c === '}') depth--;
    if (depth < 0) return `unexpected '${c}' at position ${i + 1}`;
  }
  if (quoted) return 'unterminated string literal';
  if (depth !== 0) return 'unbalanced parentheses';
  return null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function validateActionParameters(action: string, params: unknown, at: string): void {
  if (params === undefined) {
    if (action === 'redirect') throw cfErrors.rulesetInvalid('redirect rules need action_parameters', at);
    if (action === 'skip') throw cfErrors.rulesetInvalid('skip rules need action_parameters', at);
    return;
  }
  if (!isObject(params)) throw cfErrors.rulesetInvalid('action_parameters must be an object', at);
  if (action === 'redirect' && params.from_list !== undefined) {
    // Bulk Redirects: a list lookup instead of a single target (the console shows but never writes these).
    const list = params.from_list;
    if (!isObject(list) || typeof list.name !== 'string' || typeof list.key !== 'string') {
      throw cfErrors.rulesetInvalid('from_list needs name and key', `${at}/from_list`);
    }
    if (params.from_value !== undefined) {
      throw cfErrors.rulesetInvalid('from_list and from_value cannot be used together', at);
    }
  } else if (action === 'redirect') {
    const from = params.from_value;
    if (!isObject(from)) throw cfErrors.rulesetInvalid('redirect rules need from_value', `${at}/from_value`);
    const target = from.target_url;
    if (!isObject(target)) throw cfErrors.rulesetInvalid('from_value needs target_url', `${at}/from_value/target_url`);
    const hasValue = typeof target.value === 'string' && target.value !== '';
    const hasExpr = typeof target.expression === 'string' && target.expression !== '';
    if (hasValue === hasExpr) {
      throw cfErrors.rulesetInvalid(
        'target_url must have exactly one of value or expression',
        `${at}/from_value/target_url`,
      );
    }
    if (hasValue && !/^https?:\/\/[^\s]+$/i.test(target.value as string)) {
      throw cfErrors.rulesetInvalid('target_url value must be an absolute URL', `${at}/from_value/target_url/value`);
    }
    if (from.status_code !== undefined && !REDIRECT_CODES.includes(from.status_code as number)) {
      throw cfErrors.rulesetInvalid(
        `status_code must be one of ${REDIRECT_CODES.join(', ')}`,
        `${at}/from_value/status_code`,
      );
    }
    if (from.preserve_query_string !== undefined && typeof from.preserve_query_string !== 'boolean') {
      throw cfErrors.rulesetInvalid(
        'preserve_query_string must be a boolean',
        `${at}/from_value/preserve_query_string`,
      );
    }
  } else if (action === 'block') {
    const response = params.response;
    if (response !== undefined) {
      if (!isObject(response)) throw cfErrors.rulesetInvalid('response must be an object', `${at}/response`);
      const status = response.status_code;
      if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 499) {
        throw cfErrors.rulesetInvalid('status_code must be between 400 and 499', `${at}/response/status_code`);
      }
      if (typeof response.content !== 'string' || typeof response.content_type !== 'string') {
        throw cfErrors.rulesetInvalid('response needs content and content_type', `${at}/response`);
      }
    }
  } else if (action === 'skip') {
    if (Object.keys(params).length === 0) throw cfErrors.rulesetInvalid('skip needs at least one parameter', at);
    if (params.ruleset !== undefined && params.ruleset !== 'current') {
      throw cfErrors.rulesetInvalid("ruleset must be 'current'", `${at}/ruleset`);
    }
    if (params.phases !== undefined) {
      if (!Array.isArray(params.phases) || params.phases.some((p) => !RULESET_PHASES.has(p as string))) {
        throw cfErrors.rulesetInvalid('phases must be a list of phases', `${at}/phases`);
      }
    }
    if (params.products !== undefined) {
      if (!Array.isArray(params.products) || params.products.some((p) => !SKIP_PRODUCTS.includes(p as string))) {
        throw cfErrors.rulesetInvalid(`products must be a list of ${SKIP_PRODUCTS.join(', ')}`, `${at}/products`);
      }
    }
  }
}

/** PUT …/phases/{phase}/entrypoint: replaces the whole rule list, creating the entry point when absent. */
export function putEntrypoint(zone: SimZone, phase: string, body: unknown): SimRuleset {
  if (!isObject(body)) throw cfErrors.rulesetInvalid('the request body must be a ruleset object', '');
  const rulesIn = body.rules;
  if (!Array.isArray(rulesIn)) throw cfErrors.rulesetInvalid('rules must be a list', '/rules');
  const current = zone.rulesets.get(phase);
  const version = (current?.version ?? 0) + 1;
  const at = nowIso();
  const allowed = PHASE_ACTIONS[phase];
  const seenIds = new Set<string>();
  const rules: SimRule[] = rulesIn.map((raw, i) => {
    const p = `/rules/${i}`;
    if (!isObject(raw)) throw cfErrors.rulesetInvalid('a rule must be an object', p);
    const unknown = Object.keys(raw).find((k) => !RULE_FIELDS.has(k));
    if (unknown !== undefined) {
      throw cfErrors.rulesetInvalid(`unknown field "${unknown.slice(0, 64)}"`, `${p}/${unknown.slice(0, 64)}`);
    }
    const action = raw.action;
    if (typeof action !== 'string' || (allowed && !allowed.includes(action))) {
      throw cfErrors.rulesetInvalid(
        `'${String(action)}' is not a valid value for action because it's not one of the allowed values`,
        `${p}/action`,
      );
    }
    const expression = raw.expression;
    if (typeof expression !== 'string' || expression.trim() === '') {
      throw cfErrors.rulesetInvalid('expression is required', `${p}/expression`);
    }
    const exprError = expressionError(expression);
    if (exprError) throw cfErrors.rulesetInvalid(`Filter parsing error: ${exprError}`, `${p}/expression`);
    if (raw.description !== undefined && typeof raw.description !== 'string') {
      throw cfErrors.rulesetInvalid('description must be a string', `${p}/description`);
    }
    if (raw.enabled !== undefined && typeof raw.enabled !== 'boolean') {
      throw cfErrors.rulesetInvalid('enabled must be a boolean', `${p}/enabled`);
    }
    if (raw.logging !== undefined && !(isObject(raw.logging) && typeof raw.logging.enabled === 'boolean')) {
      throw cfErrors.rulesetInvalid('logging must be {enabled: boolean}', `${p}/logging`);
    }
    if (raw.logging !== undefined && action !== 'skip') throw cfErrors.loggingNotAllowed(action, `${p}/logging`);
    if (raw.ratelimit !== undefined && !isObject(raw.ratelimit)) {
      throw cfErrors.rulesetInvalid('ratelimit must be an object', `${p}/ratelimit`);
    }
    const ecc = raw.exposed_credential_check;
    if (
      ecc !== undefined &&
      !(isObject(ecc) && typeof ecc.username_expression === 'string' && typeof ecc.password_expression === 'string')
    ) {
      throw cfErrors.rulesetInvalid(
        'exposed_credential_check needs username_expression and password_expression',
        `${p}/exposed_credential_check`,
      );
    }
    validateActionParameters(action, raw.action_parameters, `${p}/action_parameters`);

    // A rule sent with its id updates that rule; an unknown id is an error, as in Cloudflare.
    let previous: SimRule | undefined;
    if (raw.id !== undefined) {
      previous = current?.rules.find((r) => r.id === raw.id);
      if (typeof raw.id !== 'string' || !ID_RE.test(raw.id) || !previous) {
        throw cfErrors.rulesetInvalid(`could not find rule ${String(raw.id)} in the ruleset`, `${p}/id`);
      }
      if (seenIds.has(raw.id)) throw cfErrors.rulesetInvalid('duplicate rule id', `${p}/id`);
      seenIds.add(raw.id);
    }
    const id = previous?.id ?? newId();
    const rule: SimRule = {
      id,
      ref: typeof raw.ref === 'string' && raw.ref !== '' ? raw.ref : (previous?.ref ?? id),
      version: '',
      lastUpdated: '',
      action,
      expression,
      description: typeof raw.description === 'string' ? raw.description : '',
      enabled: typeof raw.enabled === 'boolean' ? raw.enabled : true,
    };
    if (raw.action_parameters !== undefined) rule.actionParameters = raw.action_parameters as Record<string, unknown>;
    if (raw.logging !== undefined) rule.logging = raw.logging as { enabled: boolean };
    if (raw.ratelimit !== undefined) rule.ratelimit = raw.ratelimit as Record<string, unknown>;
    if (ecc !== undefined) rule.exposedCredentialCheck = ecc as Record<string, unknown>;
    const unchanged =
      previous &&
      JSON.stringify(ruleJson({ ...previous, version: '', lastUpdated: '' })) === JSON.stringify(ruleJson(rule));
    rule.version = unchanged && previous ? previous.version : String(version);
    rule.lastUpdated = unchanged && previous ? previous.lastUpdated : at;
    return rule;
  });

  const ruleset: SimRuleset = {
    id: current?.id ?? newId(),
    name: current?.name ?? (typeof body.name === 'string' && body.name !== '' ? body.name : 'default'),
    description: typeof body.description === 'string' ? body.description : (current?.description ?? ''),
    phase,
    version,
    lastUpdated: at,
    rules,
  };
  zone.rulesets.set(phase, ruleset);
  return ruleset;
}
