import { useParams } from 'react-router';
import { DnsTemplateInputSchema, type DnsTemplate, type DnsTemplateInput } from '@fleetdesk/contract';
import { StaticField, TextField } from '../../components/form-fields.tsx';
import { FormView } from '../../components/form-view.tsx';
import {
  NEW_RECORD,
  dnsTemplatePaths,
  dnsTemplatesApi,
  toRecordValues,
  type DnsTemplateFormValues,
} from './dns-templates-api.ts';
import { RecordsEditor } from './records-editor.tsx';

export function DnsTemplateFormPage() {
  const { id } = useParams();
  return (
    <FormView<DnsTemplate, DnsTemplateFormValues, DnsTemplateInput>
      entity="DNS Template"
      resource={dnsTemplatesApi}
      // The contract reads the inputs' text (TTL, priority) itself; its errors land on the rows' fields.
      schema={DnsTemplateInputSchema as never}
      id={id}
      defaultValues={{ name: '', records: [NEW_RECORD] }}
      toValues={(t) => ({ name: t.name, records: t.records.map(toRecordValues) })}
      paths={dnsTemplatePaths}
    >
      {({ item }) => (
        <>
          {item && <StaticField label="№" value={item.dnsTemplateNo} />}
          {item?.isInUse && (
            <p className="small text-body-secondary" role="status">
              A launch profile uses this template: it cannot be deleted while it does.
            </p>
          )}
          <TextField<DnsTemplateFormValues> name="name" label="Name" required maxLength={200} autoFocus={!item} />
          <RecordsEditor />
        </>
      )}
    </FormView>
  );
}
