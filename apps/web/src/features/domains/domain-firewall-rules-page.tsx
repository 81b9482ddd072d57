import { useState, type FormEvent } from 'react';
import { useParams } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Table from 'react-bootstrap/Table';
import {
  PRIORITY_MAX,
  firewallActionLabel,
  type DomainFirewallRuleDetail,
  type FirewallRule,
} from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { FirewallRulePicker } from '../../components/pickers/firewall-rule-picker.tsx';
import { SubmitButton } from '../../components/submit-button.tsx';
import { useUnsavedChanges } from '../../components/use-unsaved-changes.ts';
import { useToasts } from '../../components/toasts.tsx';
import { useForbiddenDialog } from '../../components/use-forbidden-dialog.ts';
import { errorMessage } from '../../lib/api-error.ts';
import { domainPaths, domainsApi, useDomainFirewallRules, useSaveDomainFirewallRules } from './domains-api.ts';

export const WAF_SAVED = 'Firewall rules saved successfully';

/** A row being edited: the priority stays text until it is saved, so the box can be cleared and retyped. */
type Row = Omit<DomainFirewallRuleDetail, 'priority'> & { priority: string };

const toRow = (r: DomainFirewallRuleDetail): Row => ({ ...r, priority: String(r.priority) });

const priorityError = (value: string) => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0 || n > PRIORITY_MAX) {
    return 'Priority must be a whole number, 0 or more';
  }
  return undefined;
};

function RulesEditor({ domainId, initial }: { domainId: string; initial: DomainFirewallRuleDetail[] }) {
  const dialogs = useDialogs();
  const toasts = useToasts();
  const save = useSaveDomainFirewallRules(domainId);
  const [rows, setRows] = useState<Row[]>(() => initial.map(toRow));
  const [picking, setPicking] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [tried, setTried] = useState(false);
  const keyOf = (list: Row[]) => JSON.stringify(list.map((r) => [r.ruleId, r.priority]));
  const [savedKey, setSavedKey] = useState(() => keyOf(rows));
  useUnsavedChanges(keyOf(rows) !== savedKey && !save.isPending);

  const handlePick = (rule: FirewallRule) => {
    setPicking(false);
    // A rule is added only once; picking it again changes nothing.
    if (rows.some((r) => r.ruleId === rule._id)) {
      setNotice(`${rule.name} is already in the list.`);
      return;
    }
    setNotice(null);
    setRows((prev) => [
      ...prev,
      {
        ruleId: rule._id,
        ruleName: rule.name,
        action: rule.action,
        expression: rule.expression,
        priority: String(rule.defaultPriority),
      },
    ]);
  };

  const handlePriority = (ruleId: string, priority: string) =>
    setRows((prev) => prev.map((r) => (r.ruleId === ruleId ? { ...r, priority } : r)));

  const handleRemove = (ruleId: string) => {
    setNotice(null);
    setRows((prev) => prev.filter((r) => r.ruleId !== ruleId));
  };

  const handleSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    if (rows.some((r) => priorityError(r.priority))) return;
    setServerErrors({});
    try {
      const saved = await save.mutateAsync({
        cloudFirewallRules: rows.map((r) => ({ ruleId: r.ruleId, priority: Number(r.priority) })),
      });
      const savedRows = saved.items.map(toRow);
      setRows(savedRows);
      setSavedKey(keyOf(savedRows));
      setTried(false);
      toasts.success(WAF_SAVED);
    } catch (error) {
      const fields = (error as { fields?: Record<string, string> }).fields;
      if (fields) setServerErrors(fields);
      void dialogs.apiError(error);
    }
  };

  return (
    <Form noValidate onSubmit={(event) => void handleSubmit(event)}>
      <Table responsive className="align-middle fd-record-table" aria-label="Firewall rules">
        <thead>
          <tr>
            <th scope="col" style={{ width: '3rem' }}>
              #
            </th>
            <th scope="col">Name</th>
            <th scope="col" style={{ width: '12rem' }}>
              Action
            </th>
            <th scope="col" style={{ width: '10rem' }}>
              Priority
            </th>
            <th scope="col" style={{ width: '7rem' }}>
              <span className="visually-hidden">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={5} className="text-center text-body-secondary py-4">
                No firewall rules
              </td>
            </tr>
          ) : (
            rows.map((row, index) => {
              const error =
                (tried ? priorityError(row.priority) : undefined) ??
                serverErrors[`cloudFirewallRules.${index}.priority`] ??
                serverErrors[`cloudFirewallRules.${index}.ruleId`];
              return (
                <tr key={row.ruleId}>
                  <td data-label="#">{index + 1}</td>
                  <td data-label="Name">
                    <div>{row.ruleName}</div>
                    {row.expression && (
                      <code className="small text-body-secondary text-break d-block">{row.expression}</code>
                    )}
                  </td>
                  <td data-label="Action" title={row.action}>
                    {firewallActionLabel(row.action)}
                  </td>
                  <td data-label="Priority">
                    <Form.Control
                      type="number"
                      min={0}
                      step={1}
                      size="sm"
                      value={row.priority}
                      isInvalid={Boolean(error)}
                      aria-label={`Priority of ${row.ruleName}`}
                      onChange={(event) => handlePriority(row.ruleId, event.target.value)}
                    />
                    {error && <Form.Control.Feedback type="invalid">{error}</Form.Control.Feedback>}
                  </td>
                  <td className="text-end" data-label="">
                    <Button
                      size="sm"
                      variant="outline-danger"
                      aria-label={`Remove ${row.ruleName}`}
                      onClick={() => handleRemove(row.ruleId)}
                    >
                      Remove
                    </Button>
                  </td>
                </tr>
              );
            })
          )}
        </tbody>
      </Table>
      {notice && (
        <Alert variant="info" className="py-2" dismissible onClose={() => setNotice(null)}>
          {notice}
        </Alert>
      )}
      <div className="d-flex flex-wrap gap-2 align-items-start">
        <Button variant="outline-secondary" onClick={() => setPicking(true)}>
          Add Rule
        </Button>
        <SubmitButton pending={save.isPending}>Save</SubmitButton>
      </div>
      <p className="small text-body-secondary mt-3 mb-0">
        Saving stores the domain&apos;s rules. Cloud Actions → Update Firewall Rules pushes them to the cloud.
      </p>
      <FirewallRulePicker show={picking} onHide={() => setPicking(false)} onPick={handlePick} />
    </Form>
  );
}

/** Setup WAF: the domain's firewall rules (templates with its own priorities), saved as a set. */
export function DomainFirewallRulesPage() {
  const { id = '' } = useParams();
  const domain = domainsApi.useItem(id);
  const rules = useDomainFirewallRules(id);
  useForbiddenDialog(domain.error ?? rules.error);
  const failed = domain.error ?? rules.error;

  return (
    <section style={{ maxWidth: 880 }}>
      <div className="d-flex flex-wrap align-items-center gap-2 mb-1">
        <h1 className="h3 mb-0 me-auto">Setup WAF</h1>
        <LinkButton to={domainPaths.edit(id)} variant="outline-secondary">
          Back to domain
        </LinkButton>
      </div>
      {domain.data && (
        <p className="text-body-secondary mb-3">
          Domain № {domain.data.domainNo}: <strong className="text-body">{domain.data.domainNameUnicode}</strong>
        </p>
      )}
      {failed ? (
        <ErrorBox
          detail={errorMessage(failed)}
          onRefresh={() => {
            void domain.refetch();
            void rules.refetch();
          }}
        />
      ) : rules.isSuccess && domain.isSuccess ? (
        <RulesEditor domainId={id} initial={rules.data.items} />
      ) : (
        <LoadingSpinner />
      )}
    </section>
  );
}
