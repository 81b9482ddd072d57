import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { importPath, useCreateImport } from '../imports/imports-api.ts';
import { useDialogs } from '../../components/dialog-host.tsx';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import Table from 'react-bootstrap/Table';
import type { RegistratorDomain, RegistratorImportResult } from '@fleetdesk/contract';
import { ErrorBox } from '../../components/error-box.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { Pager } from '../../components/pager.tsx';
import { rowNumber } from '../../components/pager-logic.ts';
import { RefreshButton } from '../../components/refresh-button.tsx';
import { SearchBox } from '../../components/search-box.tsx';
import { useToasts } from '../../components/toasts.tsx';
import { useForbiddenDialog } from '../../components/use-forbidden-dialog.ts';
import { useListUrlState } from '../../components/use-list-url-state.ts';
import { errorMessage } from '../../lib/api-error.ts';
import { domainRegistratorPaths, domainRegistratorsApi } from './domain-registrators-api.ts';
import { useImportDomains, useRegistratorDomains } from './registrar-api.ts';

const soon = (date: string | null) => {
  if (!date) return false;
  const days = (Date.parse(`${date}T00:00:00Z`) - Date.now()) / 86_400_000;
  return days >= 0 && days <= 30;
};

function ImportSummary({ result }: { result: RegistratorImportResult }) {
  return (
    <Alert variant={result.created.length ? 'success' : 'warning'} dismissible={false} data-testid="import-result">
      <div>
        Imported {result.created.length} domain{result.created.length === 1 ? '' : 's'}
        {result.created.length > 0 && <>: {result.created.map((c) => c.domainName).join(', ')}</>}
      </div>
      {result.skipped.map((s) => (
        <div key={s.domainName} className="small">
          Skipped {s.domainName}: {s.reason}
        </div>
      ))}
    </Alert>
  );
}

/**
 * /domain-registrators/{id}/domains: every domain in the registrar account (spec 2 §2, §7), paged and searched
 * at Namecheap, each marked when the console has it. Beyond the spec: select rows and Import them as domains
 * tied to this registrator, with their expiration dates.
 */
export function RegistratorDomainsPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const planImport = useCreateImport();
  const dialogs = useDialogs();
  const registrator = domainRegistratorsApi.useItem(id);
  const { page, search, setPage, setSearch } = useListUrlState();
  const query = useRegistratorDomains(id, page, search);
  useForbiddenDialog(query.error ?? registrator.error);
  const importer = useImportDomains(id);
  const toasts = useToasts();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [result, setResult] = useState<RegistratorImportResult>();

  const items = query.data?.items ?? [];
  const selectable = items.filter((d) => !d.existsInConsole);
  const allOnPage = selectable.length > 0 && selectable.every((d) => selected.has(d.domainName));
  const toggle = (name: string) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(name)) next.delete(name);
      else next.add(name);
      return next;
    });
  const toggleAll = () =>
    setSelected((prev) => {
      const next = new Set(prev);
      for (const d of selectable) {
        if (allOnPage) next.delete(d.domainName);
        else next.add(d.domainName);
      }
      return next;
    });

  const runImport = () =>
    importer.mutate([...selected], {
      onSuccess: (r) => {
        setResult(r);
        setSelected(new Set());
        toasts.success(`Imported ${r.created.length} domain${r.created.length === 1 ? '' : 's'}`);
      },
    });

  const row = (d: RegistratorDomain, i: number) => (
    <tr key={d.domainName} className={selected.has(d.domainName) ? 'table-active' : undefined}>
      <td>
        <Form.Check
          aria-label={`Select ${d.domainNameUnicode}`}
          checked={selected.has(d.domainName)}
          disabled={d.existsInConsole}
          onChange={() => toggle(d.domainName)}
        />
      </td>
      <td className="text-body-secondary" data-label="#">
        {rowNumber(i, page)}
      </td>
      <td data-label="Domain Name">
        {d.domainNameUnicode}
        {d.domainNameUnicode !== d.domainName && <div className="small text-body-secondary">{d.domainName}</div>}
      </td>
      <td data-label="Expiration Date">
        {d.expirationDate ?? '—'}
        {d.isExpired && (
          <Badge bg="danger" className="ms-2">
            expired
          </Badge>
        )}
        {!d.isExpired && soon(d.expirationDate) && (
          <Badge bg="warning" text="dark" className="ms-2">
            expiring soon
          </Badge>
        )}
      </td>
      <td data-label="Console">
        {d.existsInConsole && d.domainId ? (
          <Link to={`/domains/${d.domainId}`}>In console</Link>
        ) : (
          <span className="text-body-secondary">—</span>
        )}
      </td>
    </tr>
  );

  return (
    <section>
      <div className="d-flex flex-wrap align-items-center gap-2 mb-1">
        <h1 className="h3 mb-0 me-auto">Registrator Domains</h1>
        <Button onClick={runImport} disabled={!selected.size || importer.isPending}>
          {importer.isPending && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
          Import{selected.size ? ` (${selected.size})` : ''}
        </Button>
        <Button
          variant="outline-primary"
          disabled={planImport.isPending}
          onClick={() =>
            planImport.mutate(
              { source: 'registrar', sourceId: id },
              {
                onSuccess: (p) => void navigate(importPath(p._id)),
                onError: (err) => void dialogs.apiError(err),
              },
            )
          }
        >
          Import the whole account
        </Button>
        <RefreshButton onRefresh={() => void query.refetch()} pending={query.isFetching} />
        <LinkButton to={domainRegistratorPaths.edit(id)} variant="outline-secondary">
          Back to registrator
        </LinkButton>
      </div>
      <p className="text-body-secondary mb-3">
        {registrator.data ? (
          <>
            Registrator <strong className="text-body">{registrator.data.name}</strong> · API user{' '}
            {registrator.data.credentials.apiUsername}
          </>
        ) : (
          ' '
        )}
      </p>
      {importer.isError && (
        <Alert variant="danger" data-testid="import-error">
          {errorMessage(importer.error)}
        </Alert>
      )}
      {result && <ImportSummary result={result} />}
      <div className="d-flex flex-wrap align-items-center gap-3 mb-3">
        <SearchBox value={search} onSearch={setSearch} />
        {query.data && <span className="text-body-secondary small">Total: {query.data.itemsCount}</span>}
        {selected.size > 0 && <span className="small">{selected.size} selected</span>}
      </div>
      {query.isPending ? (
        <LoadingSpinner />
      ) : query.isError ? (
        <ErrorBox detail={errorMessage(query.error)} onRefresh={() => void query.refetch()} />
      ) : (
        <>
          <div className="table-responsive">
            <Table hover size="sm" className="align-middle fd-record-table">
              <thead>
                <tr>
                  <th style={{ width: '2.5rem' }}>
                    <Form.Check
                      aria-label="Select all on this page"
                      checked={allOnPage}
                      disabled={!selectable.length}
                      onChange={toggleAll}
                    />
                  </th>
                  <th style={{ width: '4rem' }}>#</th>
                  <th>Domain Name</th>
                  <th>Expiration Date</th>
                  <th>Console</th>
                </tr>
              </thead>
              <tbody>
                {items.length ? (
                  items.map(row)
                ) : (
                  <tr>
                    <td colSpan={5} className="text-center text-body-secondary py-4">
                      No items found
                    </td>
                  </tr>
                )}
              </tbody>
            </Table>
          </div>
          <Pager page={page} itemsCount={query.data.itemsCount} onPageChange={setPage} />
        </>
      )}
    </section>
  );
}
