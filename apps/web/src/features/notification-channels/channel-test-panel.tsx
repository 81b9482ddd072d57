import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import type { NotificationChannel } from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { formatDateTime } from '../../lib/format.ts';
import { useTestChannel } from './notification-channels-api.ts';

/** The edit page's Test button: sends a sample through the saved channel and shows what the provider said. */
export function ChannelTestPanel({ channel }: { channel: NotificationChannel }) {
  const dialogs = useDialogs();
  const test = useTestChannel();
  const result = test.data;
  return (
    <fieldset className="border rounded p-3 mb-3">
      <legend className="float-none w-auto fs-6 px-2 mb-0">Test message</legend>
      {channel.lastTestAt && !result && (
        <p className="mb-2 small">
          Last test {formatDateTime(channel.lastTestAt)}: {channel.lastTestOk ? 'delivered' : 'failed'}
          {channel.lastTestAnswer ? ` (${channel.lastTestAnswer})` : ''}
        </p>
      )}
      {result && (
        <Alert variant={result.ok ? 'success' : 'danger'} className="py-2 text-break" data-testid="channel-test-result">
          {result.ok ? `Sent. The provider answered: ${result.answer}` : result.answer}
        </Alert>
      )}
      <Button
        type="button"
        variant="outline-primary"
        disabled={test.isPending}
        onClick={() => test.mutate(channel._id, { onError: (e) => void dialogs.apiError(e) })}
      >
        {test.isPending && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
        Send Test Message
      </Button>
      <div className="form-text">Sends through the saved settings: save your changes first.</div>
    </fieldset>
  );
}
