import { useState } from 'react';
import { useParams } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import Table from 'react-bootstrap/Table';
import {
  FLEETDESK_RULE_DESCRIPTION_PREFIX,
  firewallActionLabel,
  type Domain,
  type UpdateFirewallRulesResult,
} from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { useToasts } from '../../components/toasts.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { cloudFlarePaths, useDomainFirewallRules, useUpdateFirewallRules } from './cloud-flare-api.ts';
import { CloudFlareSubpage } from './cloud-flare-subpage.tsx';

function UpdateFirewallRules({ domain }: { domain: Domain }) {
  const dialogs = useDialogs();
  const toasts = useToasts();
  const query = useDomainFirewallRules(domain._id);
  const push = useUpdateFirewallRules(domain._id);
  const [result, setResult] = useState<UpdateFirewallRulesResult | null>(null);

  if (query.isPending) return <LoadingSpinner />;
  if (query.isError) return <ErrorBox detail={errorMessage(query.error)} onRefresh={() => void query.refetch()} />;
  // The server writes them in this order: lower priority first, equal priorities as saved.
  const rules = [...query.data.items].sort((a, b) => a.priority - b.priority);

  const handlePush = async () => {
    if (
      !rules.length &&
      !(await dialogs.confirm(
        'This domain has no firewall rules: pushing removes the rules the console wrote earlier. Continue?',
      ))
    ) {
      return;
    }
    try {
      setResult(await push.mutateAsync());
      toasts.success('Firewall rules updated successfully');
    } catch (error) {
      setResult(null);
      void dialogs.apiError(error);
    }
  };

  return (
    <>
      <p>
        Writes the domain&apos;s firewall rules, in this order, into the zone&apos;s WAF custom rules. Rules the console
        wrote are marked &ldquo;{FLEETDESK_RULE_DESCRIPTION_PREFIX.trim()}&rdquo; and replaced; rules made elsewhere (in
        Cloudflare&apos;s dashboard, by other tools) stay where they are.
      </p>
      {rules.length ? (
        <div data-testid="firewall-rules-to-push">
          <Table responsive bordered hover size="sm">
            <thead>
              <tr>
                <th style={{ width: '3rem' }}>#</th>
                <th>Name</th>
                <th>Action</th>
                <th>Expression</th>
                <th style={{ width: '6rem' }}>Priority</th>
              </tr>
            </thead>
            <tbody>
              {rules.map((r, i) => (
                <tr key={r.ruleId}>
                  <td>{i + 1}</td>
                  <td>{r.ruleName}</td>
                  <td title={r.action}>{firewallActionLabel(r.action)}</td>
                  <td className="text-break">
                    {r.expression ? (
                      <code className="small">{r.expression}</code>
                    ) : (
                      <span className="text-danger">no expression</span>
                    )}
                  </td>
                  <td>{r.priority}</td>
                </tr>
              ))}
            </tbody>
          </Table>
        </div>
      ) : (
        <Alert variant="info">
          This domain has no firewall rules yet.{' '}
          <LinkButton to={cloudFlarePaths.setupWaf(domain._id)} size="sm" variant="outline-primary">
            Setup WAF
          </LinkButton>
        </Alert>
      )}
      <div className="d-flex flex-wrap gap-2 mb-3">
        <Button onClick={() => void handlePush()} disabled={push.isPending}>
          {push.isPending && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
          Push to Cloudflare
        </Button>
        {rules.length > 0 && (
          <LinkButton to={cloudFlarePaths.setupWaf(domain._id)} variant="outline-secondary">
            Setup WAF
          </LinkButton>
        )}
      </div>
      {result && (
        <Alert variant="success" data-testid="firewall-rules-result">
          <div className="fw-semibold">{result.message}</div>
          <div className="small mt-1">
            Ruleset <code>{result.cloudRulesetId}</code>
          </div>
        </Alert>
      )}
    </>
  );
}

export function UpdateFirewallRulesPage() {
  const { id = '' } = useParams();
  return (
    <CloudFlareSubpage id={id} title="Update Firewall Rules" needs="zone">
      {(domain) => <UpdateFirewallRules domain={domain} />}
    </CloudFlareSubpage>
  );
}
