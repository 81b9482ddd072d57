import type { ReactNode } from 'react';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';

type PanelQuery<T, E> = {
  isPending: boolean;
  isError: boolean;
  isFetching: boolean;
  data: T | undefined;
  error: E | null;
  refetch: () => unknown;
};

/**
 * A hosting panel tab's frame (Direct Admin, ISP Manager): a small spinner while the panel answers, its error
 * with Retry when the call fails, else the tab's content; `name` makes the test ids (`<name>-panel`, …).
 */
export function PanelFrame<T, E>({
  name,
  query,
  showError,
  children,
}: {
  name: string;
  query: PanelQuery<T, E>;
  /** The failure in the panel's words. */
  showError: (error: E, testId: string) => ReactNode;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) {
    return (
      <Spinner animation="border" size="sm" role="status">
        <span className="visually-hidden">Loading...</span>
      </Spinner>
    );
  }
  return (
    <div data-testid={`${name}-panel`} className="mb-3">
      {query.isError ? (
        <>
          {showError(query.error as E, `${name}-error`)}
          <Button
            variant="outline-secondary"
            size="sm"
            onClick={() => void query.refetch()}
            disabled={query.isFetching}
          >
            Retry
          </Button>
        </>
      ) : (
        children(query.data as T)
      )}
    </div>
  );
}
