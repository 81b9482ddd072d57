import { useParams } from 'react-router';
import { useWatch } from 'react-hook-form';
import {
  ALERT_EVENTS,
  ALERT_EVENT_LABELS,
  ALERT_SEVERITIES,
  ALERT_SEVERITY_LABELS,
  CHANNEL_KIND_LABELS,
  type AlertRule,
  type AlertRuleInput,
  type Brand,
} from '@fleetdesk/contract';
import { CheckField, SelectField, StaticField, TextField } from '../../components/form-fields.tsx';
import { FormView } from '../../components/form-view.tsx';
import { PickerFormField } from '../../components/picker-form-field.tsx';
import { BrandPicker, brandLabel } from '../../components/pickers/brand-picker.tsx';
import { channelsApi } from '../notification-channels/notification-channels-api.ts';
import { CheckListField } from './check-list-field.tsx';
import { RuleFormSchema, filterToText, rulePaths, rulesApi, type RuleFormValues } from './alert-rules-api.ts';

const EVENT_OPTIONS = ALERT_EVENTS.map((e) => ({ value: e, label: ALERT_EVENT_LABELS[e] }));
const SEVERITY_OPTIONS = ALERT_SEVERITIES.map((s) => ({ value: s, label: ALERT_SEVERITY_LABELS[s] }));
const SCOPE_OPTIONS = [
  { value: 'all', label: 'All domains' },
  { value: 'brand', label: 'A brand' },
  { value: 'filter', label: 'A saved filter of the domains list' },
];

function ChannelChoice() {
  const list = channelsApi.useList({ page: 1 });
  const options = (list.data?.items ?? []).map((c) => ({
    value: c._id,
    label: `${c.name} (${CHANNEL_KIND_LABELS[c.kind]})`,
  }));
  return (
    <CheckListField<RuleFormValues>
      name="channelIds"
      label="Channels"
      options={options}
      help={list.data && !options.length ? 'Create a notification channel first.' : undefined}
    />
  );
}

function ScopeFields({ item }: { item: AlertRule | undefined }) {
  const scope = useWatch<RuleFormValues, 'scope'>({ name: 'scope' });
  if (scope === 'brand')
    return (
      <PickerFormField<Brand, RuleFormValues>
        name="brandId"
        label="Brand"
        getLabel={brandLabel}
        picker={BrandPicker}
        initial={(item?.brand as Brand | null) ?? null}
      />
    );
  if (scope === 'filter')
    return (
      <TextField<RuleFormValues>
        name="filter"
        label="Domains list filter"
        maxLength={2000}
        placeholder="/domains?brandId=…&health=problems"
        help="Filter the domains list, then paste its address here: the rule covers the domains it shows."
      />
    );
  return null;
}

export function RuleFormPage() {
  const { id } = useParams();
  return (
    <FormView<AlertRule, RuleFormValues, AlertRuleInput>
      entity="Rule"
      resource={rulesApi}
      schema={RuleFormSchema as never}
      id={id}
      defaultValues={{
        name: '',
        enabled: true,
        events: ['health_failing', 'server_offline'],
        expiryDays: 30,
        healthMinutes: 15,
        scope: 'all',
        brandId: null,
        filter: '',
        channelIds: [],
        minSeverity: 'warning',
        reminderMinutes: null,
        quietStart: '',
        quietEnd: '',
        timeZone: '',
      }}
      toValues={(r) => ({
        name: r.name,
        enabled: r.enabled,
        events: r.events,
        expiryDays: r.expiryDays,
        healthMinutes: r.healthMinutes,
        scope: r.scope,
        brandId: r.brand?._id ?? null,
        filter: filterToText(r.filter),
        channelIds: r.channels.map((c) => c._id),
        minSeverity: r.minSeverity,
        reminderMinutes: r.reminderMinutes,
        quietStart: r.quietStart ?? '',
        quietEnd: r.quietEnd ?? '',
        timeZone: r.timeZone ?? '',
      })}
      paths={rulePaths}
    >
      {({ item }) => (
        <>
          {item && <StaticField label="№" value={item.ruleNo} />}
          <TextField<RuleFormValues> name="name" label="Name" required maxLength={200} />
          <CheckField<RuleFormValues> name="enabled" label="Enabled" />
          <CheckListField<RuleFormValues> name="events" label="Events" options={EVENT_OPTIONS} />
          <div className="row">
            <div className="col-sm-6">
              <TextField<RuleFormValues>
                name="expiryDays"
                label="Days before expiry"
                type="number"
                min={1}
                max={365}
                help="For “Domain expiring”."
              />
            </div>
            <div className="col-sm-6">
              <TextField<RuleFormValues>
                name="healthMinutes"
                label="Minutes failing"
                type="number"
                min={0}
                max={10080}
                help="For “Health check failing”: how long before it counts."
              />
            </div>
          </div>
          <SelectField<RuleFormValues> name="scope" label="Domains" options={SCOPE_OPTIONS} />
          <ScopeFields item={item} />
          <ChannelChoice />
          <SelectField<RuleFormValues> name="minSeverity" label="Minimum severity" options={SEVERITY_OPTIONS} />
          <TextField<RuleFormValues>
            name="reminderMinutes"
            label="Remind after (minutes)"
            type="number"
            min={5}
            max={43200}
            help="While a problem lasts, at most one reminder per this interval. Empty: no reminders."
          />
          <fieldset className="border rounded p-3 mb-3">
            <legend className="float-none w-auto fs-6 px-2 mb-0">Quiet hours</legend>
            <div className="row">
              <div className="col-sm-4">
                <TextField<RuleFormValues> name="quietStart" label="From" placeholder="22:00" maxLength={5} />
              </div>
              <div className="col-sm-4">
                <TextField<RuleFormValues> name="quietEnd" label="Until" placeholder="07:00" maxLength={5} />
              </div>
              <div className="col-sm-4">
                <TextField<RuleFormValues>
                  name="timeZone"
                  label="Time zone"
                  placeholder="Europe/Berlin"
                  maxLength={64}
                />
              </div>
            </div>
            <div className="form-text">Messages are held during quiet hours and sent when they end, never dropped.</div>
          </fieldset>
        </>
      )}
    </FormView>
  );
}
