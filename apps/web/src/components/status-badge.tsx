import Badge from 'react-bootstrap/Badge';

/** One colour per meaning, for every status the console shows. */
const VARIANTS: Record<string, string> = {
  active: 'success',
  online: 'success',
  ok: 'success',
  completed: 'success',
  running: 'primary',
  queued: 'info',
  inactive: 'secondary',
  expired: 'secondary',
  unknown: 'secondary',
  cancelled: 'secondary',
  offline: 'danger',
  error: 'danger',
  failed: 'danger',
};

/** The status badge used in every list and page: the status word itself, coloured by what it means. */
export function StatusBadge({ status, label }: { status: string | null | undefined; label?: string }) {
  if (!status) return null;
  const bg = VARIANTS[status] ?? 'secondary';
  return (
    <Badge bg={bg} text={bg === 'info' ? 'dark' : undefined} className="fd-status" data-status={status}>
      {label ?? status}
    </Badge>
  );
}
