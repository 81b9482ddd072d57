import { useQuery } from '@tanstack/react-query';
import { Navigate, useParams } from 'react-router';
import type { PlanRef } from '@fleetdesk/contract';
import { ErrorBox } from '../../components/error-box.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { api } from '../../lib/api-client.ts';
import { ApiError } from '../../lib/api-error.ts';

/**
 * /plans/{id}: one address for a plan of any kind (decision 084). The plan is found by its id and the page of its
 * kind opens in its place (a fleet plan, an import, a launch batch).
 */
export function PlanRedirectPage() {
  const { id = '' } = useParams();
  const query = useQuery({
    queryKey: ['plans', 'item', id],
    queryFn: ({ signal }) => api.get<PlanRef>(`/api/plans/${encodeURIComponent(id)}`, undefined, signal),
  });
  if (query.isPending) return <LoadingSpinner />;
  if (query.isError)
    return query.error instanceof ApiError && query.error.status === 404 ? (
      <ErrorBox message={query.error.message} />
    ) : (
      <ErrorBox onRefresh={() => void query.refetch()} />
    );
  return <Navigate to={query.data.path} replace />;
}
