import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import { useParams } from 'react-router';
import { useWatch } from 'react-hook-form';
import {
  CHANNEL_KINDS,
  CHANNEL_KIND_LABELS,
  NotificationChannelInputSchema,
  SMTP_SECURITY,
  SMTP_SECURITY_LABELS,
  type NotificationChannel,
  type NotificationChannelInput,
} from '@fleetdesk/contract';
import { CheckField, SelectField, StaticField, TextField } from '../../components/form-fields.tsx';
import { FormView } from '../../components/form-view.tsx';
import { SecretField, revealSecret, secretFormValue } from '../../components/secret-field.tsx';
import { useDialogs } from '../../components/dialog-host.tsx';
import { ChannelTestPanel } from './channel-test-panel.tsx';
import { channelPaths, channelsApi, type ChannelFormValues } from './notification-channels-api.ts';

const KIND_OPTIONS = CHANNEL_KINDS.map((k) => ({ value: k, label: CHANNEL_KIND_LABELS[k] }));
const SECURITY_OPTIONS = SMTP_SECURITY.map((s) => ({ value: s, label: SMTP_SECURITY_LABELS[s] }));

/** The webhook's signing secret: made by the server, read through the audited reveal, never typed in. */
function WebhookSecret({ channelId }: { channelId: string }) {
  const dialogs = useDialogs();
  const [value, setValue] = useState<string | null>(null);
  return (
    <div className="mb-3">
      <div className="form-label">Signing secret</div>
      {value ? (
        <code className="d-block text-break" data-testid="webhook-secret">
          {value}
        </code>
      ) : (
        <Button
          variant="outline-secondary"
          size="sm"
          onClick={() =>
            void revealSecret({ resource: 'notification-channels', id: channelId, field: 'webhookSecret' })
              .then(setValue)
              .catch((e: unknown) => void dialogs.apiError(e))
          }
        >
          Reveal signing secret
        </Button>
      )}
      <div className="form-text">
        Each POST is signed as Standard Webhooks says (webhook-id, webhook-timestamp, webhook-signature: verify it with
        a Standard Webhooks library and this secret), and with Fleetdesk-Signature: t=…,v1=… (HMAC-SHA256 of “t.body”
        with this secret). The id stays the same on retries.
      </div>
    </div>
  );
}

function KindFields({ item }: { item: NotificationChannel | undefined }) {
  const kind = useWatch<ChannelFormValues, 'kind'>({ name: 'kind' });
  const reveal = (field: string) => item && { resource: 'notification-channels', id: item._id, field };
  if (kind === 'email')
    return (
      <>
        <TextField<ChannelFormValues>
          name="smtpHost"
          label="SMTP host"
          maxLength={253}
          placeholder="smtp.example.com"
        />
        <TextField<ChannelFormValues>
          name="smtpPort"
          label="Port"
          type="number"
          min={1}
          max={65535}
          placeholder="587"
        />
        <SelectField<ChannelFormValues>
          name="smtpSecurity"
          label="Security"
          options={SECURITY_OPTIONS}
          emptyOption=""
        />
        <TextField<ChannelFormValues> name="smtpUser" label="User" maxLength={200} autoComplete="off" />
        <SecretField<ChannelFormValues>
          name="smtpPassword"
          label="Password"
          maxLength={4096}
          reveal={reveal('smtpPassword')}
          help={item ? 'Enter it again to change the host, port or security.' : undefined}
        />
        <TextField<ChannelFormValues>
          name="emailFrom"
          label="From"
          maxLength={320}
          placeholder="fleetdesk@example.com"
        />
        <TextField<ChannelFormValues>
          name="emailTo"
          label="To"
          maxLength={2000}
          placeholder="ops@example.com, oncall@example.com"
          help="One or more addresses, separated by commas."
        />
      </>
    );
  if (kind === 'webhook')
    return (
      <>
        <TextField<ChannelFormValues>
          name="webhookUrl"
          label="URL"
          maxLength={2000}
          placeholder="https://example.com/hooks/fleetdesk"
          help={item ? 'A new URL gets a new signing secret.' : undefined}
        />
        {item ? (
          // Saved with a new URL, the secret is new: the one revealed before is forgotten.
          <WebhookSecret key={item.webhookUrl ?? ''} channelId={item._id} />
        ) : (
          <p className="form-text">A signing secret is made when the channel is saved; reveal it on this page then.</p>
        )}
      </>
    );
  if (kind === 'telegram')
    return (
      <>
        <SecretField<ChannelFormValues>
          name="telegramBotToken"
          label="Bot token"
          maxLength={200}
          reveal={reveal('telegramBotToken')}
          help={item ? 'Enter it again to change the Bot API address.' : undefined}
        />
        <TextField<ChannelFormValues>
          name="telegramChatId"
          label="Chat id"
          maxLength={70}
          placeholder="-1001234567890"
        />
        <TextField<ChannelFormValues>
          name="telegramApiBase"
          label="Bot API address"
          maxLength={2000}
          placeholder="https://api.telegram.org"
          help="Leave empty for Telegram itself."
        />
      </>
    );
  return null;
}

export function ChannelFormPage() {
  const { id } = useParams();
  return (
    <FormView<NotificationChannel, ChannelFormValues, NotificationChannelInput>
      entity="Channel"
      resource={channelsApi}
      schema={NotificationChannelInputSchema as never}
      id={id}
      defaultValues={{
        name: '',
        kind: 'email',
        enabled: true,
        smtpHost: '',
        smtpPort: 587,
        smtpSecurity: 'starttls',
        smtpUser: '',
        smtpPassword: '',
        emailFrom: '',
        emailTo: '',
        webhookUrl: '',
        telegramBotToken: '',
        telegramChatId: '',
        telegramApiBase: '',
      }}
      toValues={(c) => ({
        name: c.name,
        kind: c.kind,
        enabled: c.enabled,
        smtpHost: c.smtpHost ?? '',
        smtpPort: c.smtpPort,
        smtpSecurity: c.smtpSecurity ?? '',
        smtpUser: c.smtpUser ?? '',
        smtpPassword: secretFormValue(c.smtpPassword),
        emailFrom: c.emailFrom ?? '',
        emailTo: c.emailTo ?? '',
        webhookUrl: c.webhookUrl ?? '',
        telegramBotToken: secretFormValue(c.telegramBotToken),
        telegramChatId: c.telegramChatId ?? '',
        telegramApiBase: c.telegramApiBase ?? '',
      })}
      paths={channelPaths}
    >
      {({ item }) => (
        <>
          {item && <StaticField label="№" value={item.channelNo} />}
          <TextField<ChannelFormValues> name="name" label="Name" required maxLength={200} />
          <SelectField<ChannelFormValues> name="kind" label="Kind" options={KIND_OPTIONS} />
          <CheckField<ChannelFormValues> name="enabled" label="Enabled" help="A disabled channel receives nothing." />
          <KindFields item={item} />
          {item && <ChannelTestPanel channel={item} />}
        </>
      )}
    </FormView>
  );
}
