import { useState, type FormEvent, type ReactNode } from 'react';
import { useParams } from 'react-router';
import Form from 'react-bootstrap/Form';
import {
  SSL_MODES,
  SSL_MODE_LABELS,
  TLS_1_3_LABELS,
  TLS_1_3_VALUES,
  type Domain,
  type SslMode,
  type Tls13Mode,
} from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { SubmitButton } from '../../components/submit-button.tsx';
import { useUnsavedChanges } from '../../components/use-unsaved-changes.ts';
import { useToasts } from '../../components/toasts.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { formatDateTime } from '../../lib/format.ts';
import { cloudFlarePaths, useSaveZoneSetting, useZoneSetting } from './cloud-flare-api.ts';
import { CloudFlareSubpage } from './cloud-flare-subpage.tsx';

interface SettingFormProps<V extends string> {
  domain: Domain;
  setting: 'ssl' | 'tls_1_3';
  label: string;
  values: readonly V[];
  labels: Record<V, string>;
  help: Partial<Record<V, string>>;
  /** Cloudflare's value as one of ours (TLS 1.3's 0-RTT "zrt" is on). */
  normalize: (value: string) => V | undefined;
  intro: ReactNode;
  done: string;
}

function SettingForm<V extends SslMode | Tls13Mode>({
  domain,
  setting,
  label,
  values,
  labels,
  help,
  normalize,
  intro,
  done,
}: SettingFormProps<V>) {
  const dialogs = useDialogs();
  const toasts = useToasts();
  const query = useZoneSetting(domain._id, setting);
  const save = useSaveZoneSetting<V>(domain._id, setting);
  const [picked, setPicked] = useState<V | undefined>();
  useUnsavedChanges(
    picked !== undefined && query.isSuccess && picked !== normalize(query.data.result.value) && !save.isPending,
  );

  if (query.isPending) return <LoadingSpinner />;
  if (query.isError) return <ErrorBox detail={errorMessage(query.error)} onRefresh={() => void query.refetch()} />;
  const current = query.data.result;
  const value = picked ?? normalize(current.value);

  const handleSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!value) return;
    try {
      await save.mutateAsync(value);
      setPicked(undefined);
      toasts.success(done);
    } catch (error) {
      void dialogs.apiError(error);
    }
  };

  return (
    <Form onSubmit={(event) => void handleSubmit(event)}>
      <div className="mb-3">{intro}</div>
      <fieldset className="mb-3" disabled={save.isPending}>
        <legend className="fs-6 fw-semibold">{label}</legend>
        {values.map((v) => (
          <Form.Check
            key={v}
            type="radio"
            id={`${setting}-${v}`}
            name={setting}
            className="mb-2"
            checked={value === v}
            onChange={() => setPicked(v)}
            label={
              <>
                {labels[v]}
                {help[v] && <div className="small text-body-secondary">{help[v]}</div>}
              </>
            }
          />
        ))}
      </fieldset>
      <p className="small text-body-secondary" data-testid="setting-current">
        At Cloudflare now:{' '}
        <strong>{normalize(current.value) ? labels[normalize(current.value)!] : current.value}</strong>
        {current.value === 'zrt' && ' (with 0-RTT)'}
        {current.modified_on && <> · changed {formatDateTime(current.modified_on)}</>}
        {current.editable === false && ' · not editable on this plan'}
      </p>
      <div className="d-flex gap-2">
        <SubmitButton pending={save.isPending} disabled={!value}>
          Save
        </SubmitButton>
        <LinkButton to={cloudFlarePaths.cloudTab(domain._id)} variant="outline-secondary">
          Back
        </LinkButton>
      </div>
    </Form>
  );
}

const SSL_HELP: Record<SslMode, string> = {
  off: 'No HTTPS between visitors and Cloudflare.',
  flexible: 'HTTPS to visitors, plain HTTP from Cloudflare to the origin.',
  full: 'HTTPS end to end; the origin certificate is not validated.',
  strict: 'HTTPS end to end with a valid, trusted origin certificate.',
};

export function UpdateSslSettingsPage() {
  const { id = '' } = useParams();
  return (
    <CloudFlareSubpage id={id} title="Update SSL Settings" needs="zone">
      {(domain) => (
        <SettingForm<SslMode>
          domain={domain}
          setting="ssl"
          label="SSL/TLS encryption mode"
          values={SSL_MODES}
          labels={SSL_MODE_LABELS}
          help={SSL_HELP}
          normalize={(v) => ((SSL_MODES as readonly string[]).includes(v) ? (v as SslMode) : undefined)}
          intro={<p className="mb-0">How Cloudflare encrypts traffic for {domain.domainNameUnicode}.</p>}
          done="SSL settings saved successfully"
        />
      )}
    </CloudFlareSubpage>
  );
}

export function UpdateTls13SettingsPage() {
  const { id = '' } = useParams();
  return (
    <CloudFlareSubpage id={id} title="Update TLS 1.3 Settings" needs="zone">
      {(domain) => (
        <SettingForm<Tls13Mode>
          domain={domain}
          setting="tls_1_3"
          label="TLS 1.3"
          values={TLS_1_3_VALUES}
          labels={TLS_1_3_LABELS}
          help={{}}
          normalize={(v) =>
            v === 'zrt' ? 'on' : (TLS_1_3_VALUES as readonly string[]).includes(v) ? (v as Tls13Mode) : undefined
          }
          intro={<p className="mb-0">Whether Cloudflare offers TLS 1.3 to visitors of {domain.domainNameUnicode}.</p>}
          done="TLS 1.3 settings saved successfully"
        />
      )}
    </CloudFlareSubpage>
  );
}
