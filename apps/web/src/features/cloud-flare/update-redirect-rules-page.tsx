import { useRef, useState, type FormEvent } from 'react';
import { useParams } from 'react-router';
import Button from 'react-bootstrap/Button';
import ButtonGroup from 'react-bootstrap/ButtonGroup';
import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import {
  DEFAULT_REDIRECT_STATUS_CODE,
  REDIRECT_STATUS_CODES,
  RedirectRuleSchema,
  type Domain,
  type RedirectRuleInput,
  type RedirectRulesResult,
} from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { SubmitButton } from '../../components/submit-button.tsx';
import { useUnsavedChanges } from '../../components/use-unsaved-changes.ts';
import { useToasts } from '../../components/toasts.tsx';
import { ApiError, errorMessage } from '../../lib/api-error.ts';
import { cloudFlarePaths, useRedirectRules, useSaveRedirectRules } from './cloud-flare-api.ts';
import { CloudFlareSubpage } from './cloud-flare-subpage.tsx';

type Field = 'ruleExpression' | 'targetUrlValue' | 'targetUrlExpression' | 'statusCode' | 'preserveQueryString';

interface RuleRow {
  key: string;
  id?: string;
  description?: string;
  enabled?: boolean;
  ruleExpression: string;
  /** A static URL (targetUrlValue) or a dynamic expression (targetUrlExpression). */
  target: 'static' | 'dynamic';
  targetUrlValue: string;
  targetUrlExpression: string;
  statusCode: string;
  preserveQueryString: boolean;
}

const STATUS_LABELS: Record<number, string> = {
  301: '301 Moved Permanently',
  302: '302 Found',
  303: '303 See Other',
  307: '307 Temporary Redirect',
  308: '308 Permanent Redirect',
};

function rowOf(r: RedirectRulesResult['rules'][number], key: string): RuleRow {
  return {
    key,
    id: r.id,
    description: r.description,
    enabled: r.enabled,
    ruleExpression: r.ruleExpression,
    target: r.targetUrlExpression !== undefined ? 'dynamic' : 'static',
    targetUrlValue: r.targetUrlValue ?? '',
    targetUrlExpression: r.targetUrlExpression ?? '',
    statusCode: String(r.statusCode),
    preserveQueryString: r.preserveQueryString,
  };
}

const newRule = (key: string): RuleRow => ({
  key,
  ruleExpression: '',
  target: 'static',
  targetUrlValue: '',
  targetUrlExpression: '',
  statusCode: String(DEFAULT_REDIRECT_STATUS_CODE),
  preserveQueryString: false,
});

/** Only the chosen kind of target is sent. */
function payloadOf(r: RuleRow): RedirectRuleInput {
  return {
    id: r.id,
    description: r.description,
    enabled: r.enabled,
    ruleExpression: r.ruleExpression,
    ...(r.target === 'static' ? { targetUrlValue: r.targetUrlValue } : { targetUrlExpression: r.targetUrlExpression }),
    statusCode: Number(r.statusCode) as RedirectRuleInput['statusCode'],
    preserveQueryString: r.preserveQueryString,
  };
}

type Errors = Partial<Record<Field, string>>;

function validate(r: RuleRow): Errors {
  const parsed = RedirectRuleSchema.safeParse(payloadOf(r));
  const out: Errors = {};
  if (parsed.success) return out;
  for (const issue of parsed.error.issues) {
    let field = issue.path[0] as Field | undefined;
    // A missing target belongs to the input the operator sees.
    if (field === 'targetUrlValue' && r.target === 'dynamic') field = 'targetUrlExpression';
    if (field && !out[field]) out[field] = issue.message;
  }
  return out;
}

function RedirectEditor({ domain, initial }: { domain: Domain; initial: RedirectRulesResult }) {
  const dialogs = useDialogs();
  const toasts = useToasts();
  const save = useSaveRedirectRules(domain._id);
  const next = useRef(1);
  const keyOf = () => `r${next.current++}`;
  const [rows, setRows] = useState<RuleRow[]>(() => initial.rules.map((r) => rowOf(r, keyOf())));
  const [showErrors, setShowErrors] = useState(false);
  const [serverErrors, setServerErrors] = useState<Record<string, Errors>>({});
  // What Cloudflare holds, in the form the editor sends: the rows differ from it when there is something to save.
  const [saved, setSaved] = useState(() => JSON.stringify(rows.map(payloadOf)));
  useUnsavedChanges(JSON.stringify(rows.map(payloadOf)) !== saved && !save.isPending);

  const errorsOf = (r: RuleRow, index: number): Errors =>
    showErrors ? { ...serverErrors[String(index)], ...validate(r) } : {};

  const update = (key: string, patch: Partial<RuleRow>) => {
    setServerErrors({});
    setRows((current) => current.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  };
  const move = (index: number, by: -1 | 1) =>
    setRows((current) => {
      const copy = [...current];
      const [item] = copy.splice(index, 1);
      if (item) copy.splice(index + by, 0, item);
      return copy;
    });

  const handleSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setShowErrors(true);
    setServerErrors({});
    if (rows.some((r) => Object.keys(validate(r)).length)) return;
    try {
      const result = await save.mutateAsync({ rules: rows.map(payloadOf) });
      const savedRows = result.rules.map((r) => rowOf(r, keyOf()));
      setRows(savedRows);
      setSaved(JSON.stringify(savedRows.map(payloadOf)));
      setShowErrors(false);
      toasts.success('Redirect rules saved successfully');
    } catch (error) {
      const fields = error instanceof ApiError ? error.fields : undefined;
      const byRow: Record<string, Errors> = {};
      for (const [path, message] of Object.entries(fields ?? {})) {
        const m = /^rules\.(\d+)\.(\w+)$/.exec(path);
        if (m?.[1] && m[2]) byRow[m[1]] = { ...byRow[m[1]], [m[2]]: message };
      }
      if (Object.keys(byRow).length) setServerErrors(byRow);
      else void dialogs.apiError(error);
    }
  };

  return (
    <Form noValidate onSubmit={(event) => void handleSubmit(event)}>
      <p>
        Single redirects of <strong>{domain.domainNameUnicode}</strong>, in the order Cloudflare evaluates them. A
        request matching a rule&apos;s expression is redirected to its target: a static URL, or an expression that
        builds the URL from the request.
      </p>
      {rows.map((r, index) => {
        const e = errorsOf(r, index);
        const id = (name: string) => `${name}-${r.key}`;
        return (
          <Card key={r.key} className="mb-3" data-testid="redirect-rule">
            <Card.Header className="d-flex align-items-center gap-2">
              <span className="fw-semibold me-auto">
                Rule {index + 1}
                {r.description && <span className="fw-normal text-body-secondary"> · {r.description}</span>}
                {r.enabled === false && <span className="fw-normal text-body-secondary"> · disabled</span>}
              </span>
              <ButtonGroup size="sm">
                <Button variant="outline-secondary" onClick={() => move(index, -1)} disabled={index === 0}>
                  Up
                </Button>
                <Button variant="outline-secondary" onClick={() => move(index, 1)} disabled={index === rows.length - 1}>
                  Down
                </Button>
              </ButtonGroup>
              <Button
                size="sm"
                variant="outline-danger"
                onClick={() => setRows((current) => current.filter((x) => x.key !== r.key))}
              >
                Remove
              </Button>
            </Card.Header>
            <Card.Body>
              <Form.Group className="mb-3" controlId={id('expression')}>
                <Form.Label>
                  When incoming requests match (expression)
                  <span className="text-danger ms-1" aria-hidden="true">
                    *
                  </span>
                </Form.Label>
                <Form.Control
                  as="textarea"
                  rows={2}
                  className="font-monospace small"
                  spellCheck={false}
                  value={r.ruleExpression}
                  isInvalid={Boolean(e.ruleExpression)}
                  onChange={(event) => update(r.key, { ruleExpression: event.target.value })}
                  placeholder='(http.request.uri.path eq "/old-page")'
                />
                {e.ruleExpression && <Form.Control.Feedback type="invalid">{e.ruleExpression}</Form.Control.Feedback>}
              </Form.Group>
              <fieldset className="mb-2">
                <legend className="form-label fs-6 mb-1">Then redirect to</legend>
                <Form.Check
                  inline
                  type="radio"
                  id={id('static')}
                  name={id('target')}
                  label="Static URL"
                  checked={r.target === 'static'}
                  onChange={() => update(r.key, { target: 'static' })}
                />
                <Form.Check
                  inline
                  type="radio"
                  id={id('dynamic')}
                  name={id('target')}
                  label="Dynamic expression"
                  checked={r.target === 'dynamic'}
                  onChange={() => update(r.key, { target: 'dynamic' })}
                />
              </fieldset>
              {r.target === 'static' ? (
                <Form.Group className="mb-3" controlId={id('url')}>
                  <Form.Label visuallyHidden>Target URL</Form.Label>
                  <Form.Control
                    type="url"
                    value={r.targetUrlValue}
                    isInvalid={Boolean(e.targetUrlValue)}
                    onChange={(event) => update(r.key, { targetUrlValue: event.target.value })}
                    placeholder="https://example.com/new-page"
                  />
                  {e.targetUrlValue && <Form.Control.Feedback type="invalid">{e.targetUrlValue}</Form.Control.Feedback>}
                </Form.Group>
              ) : (
                <Form.Group className="mb-3" controlId={id('target-expression')}>
                  <Form.Label visuallyHidden>Target expression</Form.Label>
                  <Form.Control
                    className="font-monospace small"
                    spellCheck={false}
                    value={r.targetUrlExpression}
                    isInvalid={Boolean(e.targetUrlExpression)}
                    onChange={(event) => update(r.key, { targetUrlExpression: event.target.value })}
                    placeholder='concat("https://example.com", http.request.uri.path)'
                  />
                  {e.targetUrlExpression && (
                    <Form.Control.Feedback type="invalid">{e.targetUrlExpression}</Form.Control.Feedback>
                  )}
                </Form.Group>
              )}
              <Row className="g-3 align-items-center">
                <Col sm={6} md={5}>
                  <Form.Group controlId={id('status')}>
                    <Form.Label className="mb-1">Status code</Form.Label>
                    <Form.Select
                      value={r.statusCode}
                      isInvalid={Boolean(e.statusCode)}
                      onChange={(event) => update(r.key, { statusCode: event.target.value })}
                    >
                      {REDIRECT_STATUS_CODES.map((c) => (
                        <option key={c} value={c}>
                          {STATUS_LABELS[c] ?? c}
                        </option>
                      ))}
                    </Form.Select>
                    {e.statusCode && <Form.Control.Feedback type="invalid">{e.statusCode}</Form.Control.Feedback>}
                  </Form.Group>
                </Col>
                <Col sm={6} md={7} className="pt-sm-4">
                  <Form.Check
                    type="switch"
                    id={id('preserve')}
                    label="Preserve query string"
                    checked={r.preserveQueryString}
                    onChange={(event) => update(r.key, { preserveQueryString: event.target.checked })}
                  />
                </Col>
              </Row>
            </Card.Body>
          </Card>
        );
      })}
      {!rows.length && <p className="text-body-secondary">No redirect rules.</p>}
      <div className="d-flex flex-wrap gap-2">
        <Button variant="outline-primary" onClick={() => setRows((current) => [...current, newRule(keyOf())])}>
          Add Rule
        </Button>
        <SubmitButton pending={save.isPending}>Save</SubmitButton>
        <LinkButton to={cloudFlarePaths.cloudTab(domain._id)} variant="outline-secondary">
          Back
        </LinkButton>
      </div>
    </Form>
  );
}

function UpdateRedirectRules({ domain }: { domain: Domain }) {
  const query = useRedirectRules(domain._id);
  if (query.isPending) return <LoadingSpinner />;
  if (query.isError) return <ErrorBox detail={errorMessage(query.error)} onRefresh={() => void query.refetch()} />;
  return <RedirectEditor key={query.dataUpdatedAt} domain={domain} initial={query.data} />;
}

export function UpdateRedirectRulesPage() {
  const { id = '' } = useParams();
  return (
    <CloudFlareSubpage id={id} title="Update Redirect Rules" needs="zone">
      {(domain) => <UpdateRedirectRules domain={domain} />}
    </CloudFlareSubpage>
  );
}
