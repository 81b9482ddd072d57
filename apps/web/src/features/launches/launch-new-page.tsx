import { useMemo, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import Spinner from 'react-bootstrap/Spinner';
import type { LaunchInput, LaunchPlanStep } from '@fleetdesk/contract';
import { DomainNameLookNote } from '../../components/domain-name-look.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { LAUNCH_BATCH_NEW_PATH, launchPath, useCreateLaunch, useLaunchPlan } from './launches-api.ts';
import { useLaunchSettings } from './launch-settings.tsx';
import { RegisterAlone } from './register-alone.tsx';

const OUTCOME: Record<LaunchPlanStep['outcome'], { label: string; bg: string }> = {
  run: { label: 'Will run', bg: 'primary' },
  done: { label: 'Already done', bg: 'success' },
  skip: { label: 'Skipped', bg: 'secondary' },
  confirm: { label: 'Asks you first', bg: 'warning' },
  blocked: { label: 'Blocked', bg: 'danger' },
};

/** /launches/new: one form, the live plan beside it (a dry run as you type), and Launch. */
export function LaunchNewPage() {
  const navigate = useNavigate();
  const create = useCreateLaunch();
  const [domainName, setDomainName] = useState('');
  const { settings, view } = useLaunchSettings();
  const [confirmCostly, setConfirmCostly] = useState(false);
  const input = useMemo<LaunchInput>(
    () => ({ ...settings, domainName: domainName.trim(), confirmCostly }),
    [settings, domainName, confirmCostly],
  );
  const plan = useLaunchPlan(input.domainName ? input : null);
  const fields = { ...(plan.error?.fields ?? {}), ...(create.error?.fields ?? {}) };
  const blocked = !!plan.data?.blockers.length;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(input, { onSuccess: (l) => void navigate(launchPath(l._id)) });
  };

  return (
    <section>
      <div className="d-flex flex-wrap align-items-center gap-2 mb-1">
        <h1 className="h3 mb-0 me-auto">Launch a site</h1>
        <LinkButton to={LAUNCH_BATCH_NEW_PATH} variant="outline-secondary">
          Launch many
        </LinkButton>
      </div>
      <p className="text-body-secondary">
        From a name to a verified, indexed site: the plan beside the form says what each stage will do, and what blocks
        it, before anything changes. Registering a name costs money: the launch stops before it and asks.
      </p>
      <Row className="g-3">
        <Col lg={7}>
          <Form onSubmit={submit} noValidate aria-label="Launch a site">
            <Card body className="mb-3">
              <Form.Group controlId="launch-domain-name">
                <Form.Label>Domain name</Form.Label>
                <Form.Control
                  value={domainName}
                  onChange={(e) => setDomainName(e.currentTarget.value)}
                  placeholder="example.com"
                  isInvalid={!!fields.domainName}
                  autoFocus
                  required
                />
                <Form.Control.Feedback type="invalid">{fields.domainName}</Form.Control.Feedback>
                {!fields.domainName && (
                  <Form.Text muted>
                    <DomainNameLookNote value={domainName} />
                  </Form.Text>
                )}
              </Form.Group>
            </Card>
            {view(fields)}
            {/* Up front only for the registration: a held domain's new settings are confirmed on the launch's page. */}
            {plan.data?.steps.some((s) => s.key === 'register' && (s.outcome === 'confirm' || confirmCostly)) && (
              <Form.Check
                id="launch-confirm-costly"
                className="mb-3"
                label="Confirm the registration now (it costs money); otherwise the launch stops before it and asks"
                checked={confirmCostly}
                onChange={(e) => setConfirmCostly(e.currentTarget.checked)}
              />
            )}
            {create.error && <Alert variant="danger">{errorMessage(create.error)}</Alert>}
            <div className="d-flex gap-2 mb-3">
              <Button type="submit" disabled={create.isPending || !input.domainName || blocked}>
                {create.isPending && (
                  <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />
                )}
                Launch
              </Button>
              <Button variant="outline-secondary" onClick={() => void navigate(-1)}>
                Back
              </Button>
            </div>
          </Form>
        </Col>
        <Col lg={5}>
          <Card className="position-sticky" style={{ top: '1rem' }}>
            <Card.Header className="d-flex align-items-center gap-2">
              <span className="fw-semibold">Plan</span>
              {plan.isFetching && <Spinner animation="border" size="sm" role="status" aria-label="Planning" />}
            </Card.Header>
            <Card.Body aria-label="Plan" role="region">
              {!input.domainName && <p className="text-body-secondary mb-0">Type a domain name to see the plan.</p>}
              {input.domainName && plan.error && (
                <Alert variant="danger" className="mb-0">
                  {errorMessage(plan.error)}
                </Alert>
              )}
              {input.domainName && plan.data && !plan.error && (
                <>
                  {blocked && (
                    <Alert variant="danger">
                      {plan.data.blockers.length === 1
                        ? 'One stage is blocked'
                        : `${plan.data.blockers.length} stages are blocked`}
                      : fix it before launching.
                    </Alert>
                  )}
                  <ol className="list-unstyled mb-0">
                    {plan.data.steps.map((s) => (
                      <li key={s.key} className="mb-2" data-testid={`plan-${s.key}`}>
                        <div className="d-flex flex-wrap gap-2 align-items-baseline">
                          <span className={s.outcome === 'skip' ? 'text-body-secondary' : 'fw-semibold'}>
                            {s.label}
                          </span>
                          <Badge bg={OUTCOME[s.outcome].bg}>{OUTCOME[s.outcome].label}</Badge>
                        </div>
                        <div
                          className={`small text-break ${s.outcome === 'blocked' ? 'text-danger' : 'text-body-secondary'}`}
                        >
                          {s.detail}
                        </div>
                        {s.key === 'register' && plan.data.registerAlone && (
                          <RegisterAlone
                            key={plan.data.domainName}
                            domainName={plan.data.domainName}
                            alone={plan.data.registerAlone}
                          />
                        )}
                      </li>
                    ))}
                  </ol>
                </>
              )}
            </Card.Body>
          </Card>
        </Col>
      </Row>
    </section>
  );
}
