import { CHANNEL_KIND_LABELS, type NotificationChannel } from '@fleetdesk/contract';
import { ListView } from '../../components/list-view.tsx';
import type { Column } from '../../components/list-table.tsx';
import { StatusBadge } from '../../components/status-badge.tsx';
import { formatDateTime, formatYesNo } from '../../lib/format.ts';
import { channelPaths, channelsApi } from './notification-channels-api.ts';

/** Where a channel sends, without its secrets. */
export const channelTarget = (c: NotificationChannel) =>
  c.kind === 'email'
    ? (c.emailTo ?? '')
    : c.kind === 'webhook'
      ? (c.webhookUrl ?? '')
      : `chat ${c.telegramChatId ?? ''}`;

const columns: Column<NotificationChannel>[] = [
  { header: '№', render: (c) => c.channelNo, width: '5rem' },
  { header: 'Name', render: (c) => c.name },
  { header: 'Kind', render: (c) => CHANNEL_KIND_LABELS[c.kind] },
  { header: 'Sends to', render: (c) => <span className="text-break">{channelTarget(c)}</span> },
  { header: 'Enabled', render: (c) => formatYesNo(c.enabled) },
  {
    header: 'Last test',
    render: (c) =>
      c.lastTestAt ? (
        <>
          <StatusBadge status={c.lastTestOk ? 'ok' : 'failed'} /> {formatDateTime(c.lastTestAt)}
        </>
      ) : (
        '—'
      ),
  },
];

export function ChannelListPage() {
  return (
    <ListView
      title="Notification Channels"
      useList={channelsApi.useList}
      columns={columns}
      createLink={{ to: channelPaths.create, label: 'Create Channel' }}
      rowHref={(c) => channelPaths.edit(c._id)}
    />
  );
}
