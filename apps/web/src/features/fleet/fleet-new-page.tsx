import { useState, type FormEvent, type ReactNode } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import Spinner from 'react-bootstrap/Spinner';
import {
  DNS_RULE_MESSAGES,
  isProxiableType,
  DNS_RECORD_TYPES,
  FLEET_ACTION_LABELS,
  plural,
  REDIRECT_STATUS_CODES,
  SSL_MODES,
  SSL_MODE_LABELS,
  type Brand,
  type DnsTemplate,
  type FirewallRule,
  type FleetAction,
  type FleetActionKind,
  type GoogleSearchAccount,
  type Server,
} from '@fleetdesk/contract';
import { PickerField } from '../../components/picker-field.tsx';
import { BrandPicker, brandLabel } from '../../components/pickers/brand-picker.tsx';
import { DnsTemplatePicker, dnsTemplateLabel } from '../../components/pickers/dns-template-picker.tsx';
import { FirewallRulePicker } from '../../components/pickers/firewall-rule-picker.tsx';
import { ServerPicker, serverLabel } from '../../components/pickers/server-picker.tsx';
import {
  GoogleSearchAccountPicker,
  googleSearchAccountLabel,
} from '../../components/pickers/google-search-account-picker.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { fleetPlanPath, useCreateFleetPlan, type FleetNewState } from './fleet-api.ts';

// "Fix a health check" is planned from the health views (Fix all), where the check is known; a desired state from a
// file with the command-line client (`fleetdesk plan`).
const KINDS = (Object.keys(FLEET_ACTION_LABELS) as FleetActionKind[]).filter(
  (k) => k !== 'health_fix' && k !== 'state',
);

type Redirect = { ruleExpression: string; targetUrlValue: string; statusCode: number; preserveQueryString: boolean };
type Values = {
  kind: FleetActionKind;
  ssl: string;
  tls13: string;
  rules: { rule: FirewallRule; priority: number }[];
  dnsType: string;
  dnsName: string;
  dnsContent: string;
  dnsTtl: number;
  dnsProxied: boolean;
  redirects: Redirect[];
  server: Server | null;
  brand: Brand | null;
  template: DnsTemplate | null;
  status: string;
  google: GoogleSearchAccount | null;
};
const START: Values = {
  kind: 'ssl',
  ssl: 'full',
  tls13: 'on',
  rules: [],
  dnsType: 'A',
  dnsName: '@',
  dnsContent: '',
  dnsTtl: 1,
  dnsProxied: true,
  redirects: [
    {
      ruleExpression: 'http.host eq "{domain}"',
      targetUrlValue: 'https://www.{domain}/',
      statusCode: 301,
      preserveQueryString: false,
    },
  ],
  server: null,
  brand: null,
  template: null,
  status: 'active',
  google: null,
};

/** The action the form describes, as the API takes it (the API validates it again). */
function actionOf(v: Values): FleetAction {
  switch (v.kind) {
    case 'ssl':
      return { kind: 'ssl', value: v.ssl as never };
    case 'tls13':
      return { kind: 'tls13', value: v.tls13 as never };
    case 'waf_set_push':
      return {
        kind: 'waf_set_push',
        cloudFirewallRules: v.rules.map((r) => ({ ruleId: r.rule._id, priority: r.priority })),
      };
    case 'dns_add':
      return {
        kind: 'dns_add',
        record: {
          type: v.dnsType as never,
          name: v.dnsName,
          content: v.dnsContent,
          ttl: v.dnsTtl,
          proxied: v.dnsProxied && isProxiableType(v.dnsType),
        },
      };
    case 'dns_set':
      return { kind: 'dns_set', type: v.dnsType as never, name: v.dnsName, content: v.dnsContent };
    case 'dns_delete':
      return { kind: 'dns_delete', type: v.dnsType as never, name: v.dnsName };
    case 'redirects':
      return { kind: 'redirects', rules: v.redirects as never };
    case 'set_server':
      return { kind: 'set_server', serverId: v.server?._id ?? null };
    case 'set_brand':
      return { kind: 'set_brand', brandId: v.brand?._id ?? null };
    case 'set_status':
      return { kind: 'set_status', status: v.status as never };
    case 'google_verify':
      return { kind: 'google_verify', accountId: v.google?._id ?? '' };
    case 'dns_template':
      // The API keeps the template's records in the plan; only its id is sent.
      return { kind: 'dns_template', dnsTemplateId: v.template?._id ?? '' };
    default:
      return { kind: v.kind } as FleetAction;
  }
}

function Field({ label, children, id }: { label: string; id: string; children: ReactNode }) {
  return (
    <Form.Group className="mb-3" controlId={id}>
      <Form.Label>{label}</Form.Label>
      {children}
    </Form.Group>
  );
}

/** /fleet/new: the action to plan over the domains picked on the domains list. */
export function FleetNewPage() {
  const location = useLocation();
  const navigate = useNavigate();
  const state = location.state as FleetNewState | null;
  const [v, setV] = useState<Values>(START);
  const [picking, setPicking] = useState(false);
  const create = useCreateFleetPlan();
  const set = <K extends keyof Values>(k: K, value: Values[K]) => setV((prev) => ({ ...prev, [k]: value }));

  if (!state?.selection) {
    return (
      <section>
        <h1 className="h3 mb-3">Plan a fleet change</h1>
        <Alert variant="info">
          Select the domains first: on the <Link to="/domains">Domains</Link> list, tick them or filter the list and
          select all matching, then choose “Plan a fleet change”.
        </Alert>
      </section>
    );
  }

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { selection: state.selection, action: actionOf(v) },
      { onSuccess: (plan) => void navigate(fleetPlanPath(plan._id)) },
    );
  };
  const fields = create.error?.fields ?? {};
  const dns = v.kind === 'dns_add' || v.kind === 'dns_set' || v.kind === 'dns_delete';
  const how = 'filter' in state.selection ? 'all domains matching the list’s filters' : 'the ticked domains';

  return (
    <section>
      <h1 className="h3 mb-1">Plan a fleet change</h1>
      <p className="text-body-secondary">
        {plural(state.count, 'domain')} selected: {how}. Planning reads each domain’s current state and shows what will
        change before anything is changed.
      </p>
      <Form onSubmit={submit} noValidate>
        <Card body className="mb-3">
          <Field label="Action" id="fleet-kind">
            <Form.Select value={v.kind} onChange={(e) => set('kind', e.currentTarget.value as FleetActionKind)}>
              {KINDS.map((k) => (
                <option key={k} value={k}>
                  {FLEET_ACTION_LABELS[k]}
                </option>
              ))}
            </Form.Select>
          </Field>

          {v.kind === 'ssl' && (
            <Field label="SSL mode" id="fleet-ssl">
              <Form.Select value={v.ssl} onChange={(e) => set('ssl', e.currentTarget.value)}>
                {SSL_MODES.map((m) => (
                  <option key={m} value={m}>
                    {SSL_MODE_LABELS[m]}
                  </option>
                ))}
              </Form.Select>
            </Field>
          )}
          {v.kind === 'tls13' && (
            <Field label="TLS 1.3" id="fleet-tls13">
              <Form.Select value={v.tls13} onChange={(e) => set('tls13', e.currentTarget.value)}>
                <option value="on">On</option>
                <option value="off">Off</option>
              </Form.Select>
            </Field>
          )}
          {v.kind === 'waf_push' && (
            <p className="mb-0 text-body-secondary">
              Pushes each domain’s own WAF rules, as Update Firewall Rules does.
            </p>
          )}
          {v.kind === 'waf_set_push' && (
            <div className="mb-3">
              <p className="text-body-secondary">
                Every selected domain gets these firewall templates, then they are pushed.
              </p>
              {v.rules.map((r, i) => (
                <Row key={r.rule._id} className="g-2 align-items-center mb-2">
                  <Col>{r.rule.name}</Col>
                  <Col xs="auto">
                    <Form.Control
                      type="number"
                      min={0}
                      aria-label={`Priority of ${r.rule.name}`}
                      value={r.priority}
                      onChange={(e) =>
                        set(
                          'rules',
                          v.rules.map((x, j) => (j === i ? { ...x, priority: Number(e.currentTarget.value) } : x)),
                        )
                      }
                      style={{ width: '8rem' }}
                    />
                  </Col>
                  <Col xs="auto">
                    <Button
                      variant="outline-danger"
                      size="sm"
                      onClick={() =>
                        set(
                          'rules',
                          v.rules.filter((_, j) => j !== i),
                        )
                      }
                    >
                      Remove
                    </Button>
                  </Col>
                </Row>
              ))}
              <Button variant="outline-secondary" onClick={() => setPicking(true)}>
                Add rule
              </Button>
              <FirewallRulePicker
                show={picking}
                onHide={() => setPicking(false)}
                onPick={(rule) => {
                  setPicking(false);
                  if (!v.rules.some((r) => r.rule._id === rule._id))
                    set('rules', [...v.rules, { rule, priority: rule.defaultPriority }]);
                }}
              />
            </div>
          )}
          {dns && (
            <Row xs={1} md={2} className="g-2">
              <Col>
                <Field label="Record type" id="fleet-dns-type">
                  <Form.Select
                    value={v.dnsType}
                    onChange={(e) => {
                      const t = e.currentTarget.value;
                      set('dnsType', t);
                      // As in the DNS editor: a type Cloudflare cannot proxy is DNS only.
                      if (!isProxiableType(t)) set('dnsProxied', false);
                    }}
                  >
                    {DNS_RECORD_TYPES.map((t) => (
                      <option key={t}>{t}</option>
                    ))}
                  </Form.Select>
                </Field>
              </Col>
              <Col>
                <Field label="Name (@ for the domain itself; {domain} stands for its name)" id="fleet-dns-name">
                  <Form.Control value={v.dnsName} onChange={(e) => set('dnsName', e.currentTarget.value)} />
                </Field>
              </Col>
              {v.kind !== 'dns_delete' && (
                <Col>
                  <Field label={v.kind === 'dns_set' ? 'New content' : 'Content'} id="fleet-dns-content">
                    <Form.Control value={v.dnsContent} onChange={(e) => set('dnsContent', e.currentTarget.value)} />
                  </Field>
                </Col>
              )}
              {v.kind === 'dns_add' && (
                <>
                  <Col>
                    <Field label="TTL (1 = automatic)" id="fleet-dns-ttl">
                      <Form.Control
                        type="number"
                        value={v.dnsTtl}
                        onChange={(e) => set('dnsTtl', Number(e.currentTarget.value))}
                      />
                    </Field>
                  </Col>
                  <Col>
                    <Form.Check
                      id="fleet-dns-proxied"
                      label="Proxied"
                      checked={v.dnsProxied && isProxiableType(v.dnsType)}
                      disabled={!isProxiableType(v.dnsType)}
                      onChange={(e) => set('dnsProxied', e.currentTarget.checked)}
                    />
                    {!isProxiableType(v.dnsType) && (
                      <Form.Text className="text-body-secondary">{DNS_RULE_MESSAGES.notProxiable(v.dnsType)}</Form.Text>
                    )}
                  </Col>
                </>
              )}
            </Row>
          )}
          {v.kind === 'redirects' && (
            <div>
              <p className="text-body-secondary">
                These rules replace each domain’s redirect rules; <code>{'{domain}'}</code> stands for the domain’s
                name.
              </p>
              {v.redirects.map((r, i) => {
                const upd = (patch: Partial<Redirect>) =>
                  set(
                    'redirects',
                    v.redirects.map((x, j) => (j === i ? { ...x, ...patch } : x)),
                  );
                return (
                  <Row key={i} xs={1} md={4} className="g-2 align-items-end mb-2">
                    <Col md={5}>
                      <Field label="Rule expression" id={`fleet-redirect-expr-${i}`}>
                        <Form.Control
                          value={r.ruleExpression}
                          onChange={(e) => upd({ ruleExpression: e.currentTarget.value })}
                        />
                      </Field>
                    </Col>
                    <Col md={4}>
                      <Field label="Target URL" id={`fleet-redirect-url-${i}`}>
                        <Form.Control
                          value={r.targetUrlValue}
                          onChange={(e) => upd({ targetUrlValue: e.currentTarget.value })}
                        />
                      </Field>
                    </Col>
                    <Col md={2}>
                      <Field label="Status" id={`fleet-redirect-status-${i}`}>
                        <Form.Select
                          value={r.statusCode}
                          onChange={(e) => upd({ statusCode: Number(e.currentTarget.value) })}
                        >
                          {REDIRECT_STATUS_CODES.map((c) => (
                            <option key={c}>{c}</option>
                          ))}
                        </Form.Select>
                      </Field>
                    </Col>
                    <Col md={1} className="mb-3">
                      <Button
                        variant="outline-danger"
                        size="sm"
                        onClick={() =>
                          set(
                            'redirects',
                            v.redirects.filter((_, j) => j !== i),
                          )
                        }
                      >
                        Remove
                      </Button>
                    </Col>
                  </Row>
                );
              })}
              <Button
                variant="outline-secondary"
                onClick={() => set('redirects', [...v.redirects, { ...START.redirects[0]! }])}
              >
                Add rule
              </Button>
            </div>
          )}
          {v.kind === 'set_server' && (
            <PickerField<Server>
              label="Server"
              value={v.server}
              onChange={(s) => set('server', s)}
              getLabel={serverLabel}
              picker={ServerPicker}
              error={fields['action.serverId']}
            />
          )}
          {v.kind === 'set_brand' && (
            <PickerField<Brand>
              label="Brand"
              value={v.brand}
              onChange={(b) => set('brand', b)}
              getLabel={brandLabel}
              picker={BrandPicker}
              error={fields['action.brandId']}
            />
          )}
          {v.kind === 'dns_template' && (
            <>
              <PickerField<DnsTemplate>
                label="DNS Template"
                value={v.template}
                onChange={(t) => set('template', t)}
                getLabel={dnsTemplateLabel}
                picker={DnsTemplatePicker}
                error={fields['action.dnsTemplateId']}
                required
              />
              {v.template && (
                <ul className="small font-monospace mb-3" aria-label="The template's records">
                  {v.template.records.map((r, i) => (
                    <li key={i}>
                      {r.type} {r.name} → {r.content}
                      {r.proxied ? ' (proxied)' : ''}
                    </li>
                  ))}
                </ul>
              )}
              <p className="small text-body-secondary">
                Each domain gets the records with {'{domain}'} as its name and {'{serverIp}'} as its server's address: a
                record already in place is left alone, an A, AAAA or CNAME of the same name is updated, others are
                added.
              </p>
            </>
          )}
          {v.kind === 'google_verify' && (
            <>
              <PickerField<GoogleSearchAccount>
                label="Google account"
                value={v.google}
                onChange={(a) => set('google', a)}
                getLabel={googleSearchAccountLabel}
                picker={GoogleSearchAccountPicker}
                error={fields['action.accountId']}
              />
              <p className="small text-body-secondary">
                Each domain gets its property in this account's Search Console — a domain property through a TXT record
                when it has a Cloudflare zone, else the site's address through a file — and it is verified. A domain
                whose property is another account's is left alone. Steps of one account are paced for Google's quotas.
              </p>
            </>
          )}
          {v.kind === 'google_sitemap' && (
            <p className="small text-body-secondary">
              Each domain's https://domain/sitemap.xml is submitted to its verified Google property.
            </p>
          )}
          {v.kind === 'set_status' && (
            <Field label="Status" id="fleet-status">
              <Form.Select value={v.status} onChange={(e) => set('status', e.currentTarget.value)}>
                <option value="active">Active</option>
                <option value="inactive">Inactive</option>
              </Form.Select>
            </Field>
          )}
        </Card>
        {create.error && (
          <Alert variant="danger">
            {errorMessage(create.error)}
            {Object.keys(fields).length > 0 && (
              <ul className="mb-0 mt-2">
                {Object.entries(fields).map(([k, m]) => (
                  <li key={k}>
                    {k}: {m}
                  </li>
                ))}
              </ul>
            )}
          </Alert>
        )}
        <div className="d-flex gap-2">
          <Button type="submit" disabled={create.isPending}>
            {create.isPending && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
            Plan
          </Button>
          <Button variant="outline-secondary" onClick={() => void navigate(-1)}>
            Back
          </Button>
        </div>
      </Form>
    </section>
  );
}
