import Badge from 'react-bootstrap/Badge';
import { HEALTH_STATE_LABELS, healthCountsText, type HealthCounts, type HealthState } from '@fleetdesk/contract';

const VARIANTS: Record<HealthState, string> = {
  ok: 'success',
  warning: 'warning',
  failing: 'danger',
  unknown: 'secondary',
  na: 'light',
};

/**
 * The domain's worst health result in its colour. With the counts (the domains list), a domain with problems reads
 * each number for what it is ("4 failing · 1 warning · 2 unknown"), never one sum ("Failing · 7" read as seven
 * failing checks when four were); without problems, the state's word.
 */
export function HealthBadge({ state, counts }: { state: HealthState | null; counts?: HealthCounts }) {
  if (!state) return <span className="text-body-secondary small">not checked</span>;
  const bg = VARIANTS[state];
  const label = HEALTH_STATE_LABELS[state];
  const numbers = counts ? healthCountsText(counts) : '';
  return (
    <Badge
      bg={bg}
      text={bg === 'warning' || bg === 'light' ? 'dark' : undefined}
      // The numbers read as written ("4 failing"), wrapping in a narrow column; the word alone is capitalised.
      className={numbers ? 'text-wrap text-start' : 'fd-status'}
      data-health={state}
      title={numbers ? `Worst result: ${label}` : undefined}
    >
      {numbers
        ? // A narrow column breaks between the numbers, never inside one ("1 failing · | 1 warning").
          numbers.split(' · ').map((part, i) => (
            <span key={part}>
              {i > 0 && ' · '}
              <span className="text-nowrap">{part}</span>
            </span>
          ))
        : label}
    </Badge>
  );
}
