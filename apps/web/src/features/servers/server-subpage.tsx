import type { ReactNode } from 'react';
import type { Server } from '@fleetdesk/contract';
import { ErrorBox } from '../../components/error-box.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { useForbiddenDialog } from '../../components/use-forbidden-dialog.ts';
import { errorMessage } from '../../lib/api-error.ts';
import { serverPaths, serversApi } from './servers-api.ts';

/** The frame of a server's own pages (RSA key, test connection): title, the server, links back. */
export function ServerSubpage({
  id,
  title,
  links,
  children,
}: {
  id: string;
  title: string;
  /** Extra links beside "Back to server". */
  links?: ReactNode;
  children: (server: Server) => ReactNode;
}) {
  const query = serversApi.useItem(id);
  useForbiddenDialog(query.error);
  const server = query.data;
  return (
    <section style={{ maxWidth: 880 }}>
      <div className="d-flex flex-wrap align-items-center gap-2 mb-1">
        <h1 className="h3 mb-0 me-auto">{title}</h1>
        {links}
        <LinkButton to={serverPaths.edit(id)} variant="outline-secondary">
          Back to server
        </LinkButton>
      </div>
      {server && (
        <p className="text-body-secondary mb-3">
          Server № {server.serverNo}: {server.username}@{server.IPAddress}:{server.sshPort}
        </p>
      )}
      {query.isPending ? (
        <LoadingSpinner />
      ) : query.isError ? (
        <ErrorBox detail={errorMessage(query.error)} onRefresh={() => void query.refetch()} />
      ) : (
        children(query.data)
      )}
    </section>
  );
}
