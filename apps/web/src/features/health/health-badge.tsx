import Badge from 'react-bootstrap/Badge';
import { HEALTH_STATE_LABELS, type HealthState } from '@fleetdesk/contract';

const VARIANTS: Record<HealthState, string> = {
  ok: 'success',
  warning: 'warning',
  failing: 'danger',
  unknown: 'secondary',
  na: 'light',
};

/** The domain's worst health result, with the number of checks that are failing, warning or unknown. */
export function HealthBadge({ state, problems }: { state: HealthState | null; problems?: number }) {
  if (!state) return <span className="text-body-secondary small">not checked</span>;
  const bg = VARIANTS[state];
  const label = HEALTH_STATE_LABELS[state];
  const count = problems && state !== 'ok' && state !== 'na' ? ` · ${problems}` : '';
  return (
    <Badge
      bg={bg}
      text={bg === 'warning' || bg === 'light' ? 'dark' : undefined}
      className="fd-status"
      data-health={state}
      title={problems ? `${problems} check${problems === 1 ? '' : 's'} with a problem` : undefined}
    >
      {label}
      {count}
    </Badge>
  );
}
