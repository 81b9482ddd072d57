import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';

export function RefreshButton({ onRefresh, pending = false }: { onRefresh: () => void; pending?: boolean }) {
  return (
    <Button variant="outline-secondary" onClick={onRefresh} disabled={pending}>
      {pending && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
      Refresh
    </Button>
  );
}
