import { useCallback, useMemo, useState, type ComponentType } from 'react';
import { useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import Button from 'react-bootstrap/Button';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import {
  CHECK_STATE_FILTER_VALUES,
  HEALTH_CHECKS,
  HEALTH_STATE_LABELS,
  type Brand,
  type Cloud,
  type DomainRegistrator,
  type Server,
} from '@fleetdesk/contract';
import { PickerField } from '../../components/picker-field.tsx';
import type { PickerProps } from '../../components/picker.tsx';
import { BrandPicker, brandLabel } from '../../components/pickers/brand-picker.tsx';
import { CloudPicker, cloudLabel } from '../../components/pickers/cloud-picker.tsx';
import {
  DomainRegistratorPicker,
  domainRegistratorLabel,
} from '../../components/pickers/domain-registrator-picker.tsx';
import { ServerPicker, serverLabel } from '../../components/pickers/server-picker.tsx';
import { api, type QueryParams } from '../../lib/api-client.ts';
import type { Entity } from '../../lib/resource.ts';

/** The list's filters, as the API's query names them (h15's DomainFilterSchema), kept in the URL. */
export const DOMAIN_FILTER_KEYS = [
  'brandId',
  'serverId',
  'cloudId',
  'domainRegistratorId',
  'status',
  'hasZone',
  'expiresFrom',
  'expiresBefore',
  'health',
  'failingCheck',
  'check',
  'checkState',
] as const;
export type DomainFilterKey = (typeof DOMAIN_FILTER_KEYS)[number];
export type DomainFilterValues = Partial<Record<DomainFilterKey, string>>;

/** The filters in the URL, and a setter that starts again at page 1. */
export function useDomainFilters() {
  const [searchParams, setSearchParams] = useSearchParams();
  const raw = DOMAIN_FILTER_KEYS.map((k) => searchParams.get(k) ?? '').join('\u0000');
  const values = useMemo(() => {
    const out: DomainFilterValues = {};
    raw.split('\u0000').forEach((v, i) => {
      if (v) out[DOMAIN_FILTER_KEYS[i]!] = v;
    });
    return out;
  }, [raw]);
  const setFilter = useCallback(
    (key: DomainFilterKey, value: string | null) =>
      setSearchParams((prev) => {
        const params = new URLSearchParams(prev);
        params.delete('page');
        if (value) params.set(key, value);
        else params.delete(key);
        return params;
      }),
    [setSearchParams],
  );
  /** Several filters at once (one URL change: two setters in a row would lose the first). */
  const setFilters = useCallback(
    (patch: DomainFilterValues) =>
      setSearchParams((prev) => {
        const params = new URLSearchParams(prev);
        params.delete('page');
        for (const [k, v] of Object.entries(patch)) {
          if (v) params.set(k, v);
          else params.delete(k);
        }
        return params;
      }),
    [setSearchParams],
  );
  const clear = useCallback(
    () =>
      setSearchParams((prev) => {
        const params = new URLSearchParams(prev);
        params.delete('page');
        for (const k of DOMAIN_FILTER_KEYS) params.delete(k);
        return params;
      }),
    [setSearchParams],
  );
  return { values, setFilter, setFilters, clear, count: Object.keys(values).length };
}

/** The picked item of a filter, read back by id (the URL holds only the id). */
function usePicked<T extends Entity>(resource: string, id: string | undefined) {
  const query = useQuery({
    queryKey: [resource, 'item', id],
    queryFn: ({ signal }) => api.get<T>(`/api/${resource}/${encodeURIComponent(id!)}`, undefined, signal),
    enabled: Boolean(id && id !== 'none'),
    retry: false,
  });
  return id && query.data?._id === id ? query.data : null;
}

function RefFilter<T extends Entity>(props: {
  label: string;
  resource: string;
  id: string | undefined;
  picker: ComponentType<PickerProps<T>>;
  getLabel: (item: T) => string;
  onChange: (id: string | null) => void;
  /** Offers "none" (domains without one). */
  none?: string;
}) {
  const picked = usePicked<T>(props.resource, props.id);
  const isNone = props.id === 'none';
  return (
    <div data-testid={`filter-${props.resource}`}>
      <PickerField<T>
        label={props.label}
        value={isNone ? null : picked}
        onChange={(item) => props.onChange(item ? item._id : null)}
        getLabel={props.getLabel}
        picker={props.picker}
        placeholder={isNone ? (props.none ?? 'None') : 'Any'}
      />
      {props.none && (
        <Form.Check
          className="mt-n2 mb-2 small"
          id={`filter-none-${props.resource}`}
          label={props.none}
          checked={isNone}
          onChange={(e) => props.onChange(e.currentTarget.checked ? 'none' : null)}
        />
      )}
    </div>
  );
}

/** The filter bar beside the search: brand, server, cloud, registrator, status, zone, expiry. */
export function DomainFilterBar({ values, setFilter, setFilters, clear, count }: ReturnType<typeof useDomainFilters>) {
  // Open on wide screens or when a filter is set; on a phone the bar folds away behind its button.
  const [open, setOpen] = useState(
    () => count > 0 || typeof window === 'undefined' || window.matchMedia?.('(min-width: 768px)').matches !== false,
  );
  if (!open) {
    return (
      <Button variant="outline-secondary" className="mb-3" onClick={() => setOpen(true)} aria-expanded={false}>
        Filters{count ? ` (${count})` : ''}
      </Button>
    );
  }
  return (
    <Form
      className="border rounded p-3 mb-3 bg-body-tertiary"
      aria-label="Filters"
      onSubmit={(e) => e.preventDefault()}
    >
      <Row xs={1} md={2} xl={4} className="g-2">
        <Col>
          <RefFilter<Brand>
            label="Brand"
            resource="brands"
            id={values.brandId}
            picker={BrandPicker}
            getLabel={brandLabel}
            onChange={(v) => setFilter('brandId', v)}
            none="No brand"
          />
        </Col>
        <Col>
          <RefFilter<Server>
            label="Server"
            resource="servers"
            id={values.serverId}
            picker={ServerPicker}
            getLabel={serverLabel}
            onChange={(v) => setFilter('serverId', v)}
            none="No server"
          />
        </Col>
        <Col>
          <RefFilter<Cloud>
            label="Cloud"
            resource="clouds"
            id={values.cloudId}
            picker={CloudPicker}
            getLabel={cloudLabel}
            onChange={(v) => setFilter('cloudId', v)}
            none="No cloud"
          />
        </Col>
        <Col>
          <RefFilter<DomainRegistrator>
            label="Registrator"
            resource="domain-registrators"
            id={values.domainRegistratorId}
            picker={DomainRegistratorPicker}
            getLabel={domainRegistratorLabel}
            onChange={(v) => setFilter('domainRegistratorId', v)}
            none="No registrator"
          />
        </Col>
        <Col>
          <Form.Group controlId="filter-status">
            <Form.Label>Status</Form.Label>
            <Form.Select value={values.status ?? ''} onChange={(e) => setFilter('status', e.currentTarget.value)}>
              <option value="">Any</option>
              <option value="active">Active</option>
              <option value="inactive">Inactive</option>
            </Form.Select>
          </Form.Group>
        </Col>
        <Col>
          <Form.Group controlId="filter-zone">
            <Form.Label>Cloudflare zone</Form.Label>
            <Form.Select value={values.hasZone ?? ''} onChange={(e) => setFilter('hasZone', e.currentTarget.value)}>
              <option value="">Any</option>
              <option value="true">Has a zone</option>
              <option value="false">No zone</option>
            </Form.Select>
          </Form.Group>
        </Col>
        <Col>
          <Form.Group controlId="filter-expires-from">
            <Form.Label>Expires on or after</Form.Label>
            <Form.Control
              type="date"
              value={values.expiresFrom ?? ''}
              onChange={(e) => setFilter('expiresFrom', e.currentTarget.value)}
            />
          </Form.Group>
        </Col>
        <Col>
          <Form.Group controlId="filter-expires">
            <Form.Label>Expires before</Form.Label>
            <Form.Control
              type="date"
              value={values.expiresBefore ?? ''}
              onChange={(e) => setFilter('expiresBefore', e.currentTarget.value)}
            />
          </Form.Group>
        </Col>
        <Col>
          <Form.Group controlId="filter-health">
            <Form.Label>Health</Form.Label>
            <Form.Select value={values.health ?? ''} onChange={(e) => setFilter('health', e.currentTarget.value)}>
              <option value="">Any</option>
              <option value="problems">Any problem</option>
              <option value="failing">Failing</option>
              <option value="warning">Warning</option>
              <option value="unknown">Unknown</option>
              <option value="ok">OK</option>
              <option value="unchecked">Not checked yet</option>
            </Form.Select>
          </Form.Group>
        </Col>
        <Col>
          <Form.Group controlId="filter-failing-check">
            <Form.Label>Failing check</Form.Label>
            <Form.Select
              value={values.failingCheck ?? ''}
              onChange={(e) => setFilter('failingCheck', e.currentTarget.value)}
            >
              <option value="">Any</option>
              {HEALTH_CHECKS.map((c) => (
                <option key={c.key} value={c.key}>
                  {c.plane}: {c.label}
                </option>
              ))}
            </Form.Select>
          </Form.Group>
        </Col>
        <Col>
          <Form.Group controlId="filter-check">
            <Form.Label>Check</Form.Label>
            <Form.Select
              value={values.check ?? ''}
              // A result without its check means nothing (the API refuses it): clearing the check clears both.
              onChange={(e) => {
                const v = e.currentTarget.value;
                setFilters({ check: v, checkState: v ? values.checkState : '' });
              }}
            >
              <option value="">Any</option>
              {HEALTH_CHECKS.map((c) => (
                <option key={c.key} value={c.key}>
                  {c.plane}: {c.label}
                </option>
              ))}
            </Form.Select>
          </Form.Group>
        </Col>
        <Col>
          <Form.Group controlId="filter-check-state">
            <Form.Label>Check result</Form.Label>
            <Form.Select
              value={values.checkState ?? ''}
              disabled={!values.check}
              onChange={(e) => setFilter('checkState', e.currentTarget.value)}
            >
              <option value="">Any problem</option>
              {CHECK_STATE_FILTER_VALUES.filter((st) => st !== 'problems').map((st) => (
                <option key={st} value={st}>
                  {HEALTH_STATE_LABELS[st]}
                </option>
              ))}
            </Form.Select>
          </Form.Group>
        </Col>
        <Col className="d-flex align-items-end">
          <div className="d-flex gap-2">
            <Button variant="outline-secondary" onClick={clear} disabled={count === 0}>
              Clear filters
            </Button>
            <Button variant="link" className="d-md-none" onClick={() => setOpen(false)} aria-expanded>
              Hide
            </Button>
          </div>
        </Col>
      </Row>
    </Form>
  );
}

export const filterParams = (values: DomainFilterValues): QueryParams => ({ ...values });
