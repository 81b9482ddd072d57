import { useEffect } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useFieldArray, useFormContext, useWatch } from 'react-hook-form';
import { DNS_PRIORITY_TYPES, DNS_RECORD_TYPES, DNS_TEMPLATE_RECORDS_MAX, isProxiableType } from '@fleetdesk/contract';
import { useFieldError } from '../../components/form-fields.tsx';
import { NEW_RECORD, type DnsTemplateFormValues } from './dns-templates-api.ts';

/** Cloudflare's TTL choices; 1 is Auto. A stored value outside them is offered as it is. */
const TTL_OPTIONS: { value: string; label: string }[] = [
  { value: '1', label: 'Auto' },
  { value: '60', label: '1 min' },
  { value: '120', label: '2 min' },
  { value: '300', label: '5 min' },
  { value: '600', label: '10 min' },
  { value: '900', label: '15 min' },
  { value: '1800', label: '30 min' },
  { value: '3600', label: '1 hr' },
  { value: '7200', label: '2 hr' },
  { value: '18000', label: '5 hr' },
  { value: '43200', label: '12 hr' },
  { value: '86400', label: '1 day' },
];

type Row = `records.${number}`;

function RowFieldError({ name }: { name: `${Row}.${string}` }) {
  const error = useFieldError<DnsTemplateFormValues>(name as never);
  return error ? <div className="invalid-feedback d-block">{error}</div> : null;
}

function RecordRow({ index, onRemove, canRemove }: { index: number; onRemove: () => void; canRemove: boolean }) {
  const { register, control, getValues, setValue } = useFormContext<DnsTemplateFormValues>();
  const row: Row = `records.${index}`;
  const type = useWatch({ control, name: `${row}.type` }) ?? '';
  const ttl = useWatch({ control, name: `${row}.ttl` }) ?? '1';
  const proxiable = isProxiableType(type);
  const needsPriority = DNS_PRIORITY_TYPES.includes(type);
  // A type that cannot be proxied or has no priority sends neither (the inputs are not shown for it).
  useEffect(() => {
    if (!proxiable && getValues(`${row}.proxied`)) setValue(`${row}.proxied`, false, { shouldDirty: true });
    if (!needsPriority && getValues(`${row}.priority`) !== '') setValue(`${row}.priority`, '', { shouldDirty: true });
  }, [proxiable, needsPriority, row, getValues, setValue]);
  const err = {
    type: useFieldError<DnsTemplateFormValues>(`${row}.type`),
    name: useFieldError<DnsTemplateFormValues>(`${row}.name`),
    content: useFieldError<DnsTemplateFormValues>(`${row}.content`),
    ttl: useFieldError<DnsTemplateFormValues>(`${row}.ttl`),
    priority: useFieldError<DnsTemplateFormValues>(`${row}.priority`),
  };
  const n = index + 1;
  const ttlOptions = TTL_OPTIONS.some((o) => o.value === ttl)
    ? TTL_OPTIONS
    : [...TTL_OPTIONS, { value: ttl, label: `${ttl} s` }];
  return (
    <div
      className="fd-record-row row g-2 align-items-start border-bottom pb-2 mb-2"
      data-testid={`record-row-${index}`}
    >
      <Form.Group className="col-6 col-md-2" controlId={`record-${index}-type`}>
        <Form.Label className="small d-md-none">Type</Form.Label>
        <Form.Select aria-label={`Record ${n} type`} isInvalid={Boolean(err.type)} {...register(`${row}.type`)}>
          {DNS_RECORD_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </Form.Select>
        <RowFieldError name={`${row}.type`} />
      </Form.Group>
      <Form.Group className="col-6 col-md-2" controlId={`record-${index}-name`}>
        <Form.Label className="small d-md-none">Name</Form.Label>
        <Form.Control
          aria-label={`Record ${n} name`}
          placeholder="@"
          maxLength={255}
          spellCheck={false}
          isInvalid={Boolean(err.name)}
          {...register(`${row}.name`)}
        />
        <RowFieldError name={`${row}.name`} />
      </Form.Group>
      <Form.Group className="col-12 col-md-4" controlId={`record-${index}-content`}>
        <Form.Label className="small d-md-none">Content</Form.Label>
        <Form.Control
          aria-label={`Record ${n} content`}
          placeholder="{serverIp}"
          maxLength={4096}
          spellCheck={false}
          className="font-monospace"
          isInvalid={Boolean(err.content)}
          {...register(`${row}.content`)}
        />
        <RowFieldError name={`${row}.content`} />
      </Form.Group>
      <Form.Group className="col-4 col-md-2" controlId={`record-${index}-ttl`}>
        <Form.Label className="small d-md-none">TTL</Form.Label>
        <Form.Select aria-label={`Record ${n} TTL`} isInvalid={Boolean(err.ttl)} {...register(`${row}.ttl`)}>
          {ttlOptions.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </Form.Select>
        <RowFieldError name={`${row}.ttl`} />
      </Form.Group>
      <div className="col-4 col-md-1">
        {needsPriority ? (
          <Form.Group controlId={`record-${index}-priority`}>
            <Form.Label className="small d-md-none">Priority</Form.Label>
            <Form.Control
              aria-label={`Record ${n} priority`}
              type="number"
              min={0}
              max={65535}
              step={1}
              placeholder="10"
              isInvalid={Boolean(err.priority)}
              {...register(`${row}.priority`)}
            />
            <RowFieldError name={`${row}.priority`} />
          </Form.Group>
        ) : proxiable ? (
          <Form.Group controlId={`record-${index}-proxied`} className="pt-2">
            <Form.Check type="switch" label="Proxied" {...register(`${row}.proxied`)} />
            <RowFieldError name={`${row}.proxied`} />
          </Form.Group>
        ) : (
          <div className="pt-2 small text-body-secondary" title="Only A, AAAA and CNAME records can be proxied">
            DNS only
          </div>
        )}
      </div>
      <div className="col-4 col-md-1 text-end">
        <Button
          variant="outline-danger"
          size="sm"
          className="mt-md-1"
          onClick={onRemove}
          disabled={!canRemove}
          aria-label={`Remove record ${n}`}
        >
          Remove
        </Button>
      </div>
    </div>
  );
}

/** The template's records: one row each (type, name, content, TTL, proxied or priority), added and removed. */
export function RecordsEditor() {
  const { control } = useFormContext<DnsTemplateFormValues>();
  const { fields, append, remove } = useFieldArray({ control, name: 'records' });
  const listError = useFieldError<DnsTemplateFormValues>('records');
  return (
    <fieldset className="mb-3">
      <legend className="form-label fs-6 mb-1">
        Records
        <span className="text-danger ms-1" aria-hidden="true">
          *
        </span>
      </legend>
      <p className="small text-body-secondary mb-2">
        <code>@</code> is the domain itself. <code>{'{domain}'}</code> stands for the domain and{' '}
        <code>{'{serverIp}'}</code> for its server's address, in names and contents.
      </p>
      <div className="row g-2 small fw-semibold text-body-secondary d-none d-md-flex mb-1" aria-hidden="true">
        <div className="col-md-2">Type</div>
        <div className="col-md-2">Name</div>
        <div className="col-md-4">Content</div>
        <div className="col-md-2">TTL</div>
        <div className="col-md-1">Proxy / Priority</div>
      </div>
      {fields.map((f, index) => (
        <RecordRow key={f.id} index={index} onRemove={() => remove(index)} canRemove={fields.length > 1} />
      ))}
      {listError && <div className="invalid-feedback d-block mb-2">{listError}</div>}
      <Button
        variant="outline-secondary"
        size="sm"
        onClick={() => append({ ...NEW_RECORD, type: 'TXT', name: '@', content: '', proxied: false })}
        disabled={fields.length >= DNS_TEMPLATE_RECORDS_MAX}
      >
        Add record
      </Button>
    </fieldset>
  );
}
