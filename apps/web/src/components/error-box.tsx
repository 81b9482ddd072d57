import type { ReactNode } from 'react';
import Alert from 'react-bootstrap/Alert';

export interface ErrorBoxProps {
  message?: ReactNode;
  detail?: ReactNode;
  onRefresh?: () => void;
}

/** A load failure with a Refresh link. */
export function ErrorBox({ message = 'Failed to load data', detail, onRefresh }: ErrorBoxProps) {
  return (
    <Alert variant="danger" className="my-3">
      <span>{message}</span>
      {onRefresh && (
        <>
          {' '}
          <Alert.Link as="button" type="button" className="btn btn-link p-0 align-baseline" onClick={onRefresh}>
            Refresh
          </Alert.Link>
        </>
      )}
      {detail && <div className="small mt-1">{detail}</div>}
    </Alert>
  );
}
