import type { ReactNode } from 'react';

export interface ErrorBoxProps {
  message?: ReactNode;
  detail?: ReactNode;
  onRefresh?: () => void;
}

/**
 * A load failure with a Refresh link. Bootstrap's alert classes rather than react-bootstrap's Alert, whose fade
 * transition every list would otherwise load on a first visit (decision 048).
 */
export function ErrorBox({ message = 'Failed to load data', detail, onRefresh }: ErrorBoxProps) {
  return (
    <div role="alert" className="fade alert alert-danger show my-3">
      <span>{message}</span>
      {onRefresh && (
        <>
          {' '}
          <button type="button" className="alert-link btn btn-link p-0 align-baseline" onClick={onRefresh}>
            Refresh
          </button>
        </>
      )}
      {detail && <div className="small mt-1">{detail}</div>}
    </div>
  );
}
