import { useParams } from 'react-router';
import { DeleteView } from '../../components/delete-view.tsx';
import { channelPaths, channelsApi } from './notification-channels-api.ts';

export function ChannelDeletePage() {
  const { id = '' } = useParams();
  return (
    <DeleteView
      entity="Channel"
      id={id}
      useRemove={channelsApi.useRemove}
      doneTo={channelPaths.list}
      cancelTo={channelPaths.edit(id)}
    />
  );
}
