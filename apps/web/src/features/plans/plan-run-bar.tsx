import type { ReactNode } from 'react';
import ProgressBar from 'react-bootstrap/ProgressBar';

/** A part of a whole, in whole percent (0 of nothing). */
export const pct = (n: number, of: number) => (of > 0 ? Math.round((n / of) * 100) : 0);

/** One part of a run's bar: its colour, how many items, and a key that names it. */
export type RunSegment = { variant: string; n: number; key: string };

/**
 * A run's bar, one colour per way its items ended, moving while it runs; the first part (what changed) may show its
 * percent. The line under it is the kind's words for the same counts.
 */
export function PlanRunBar(props: {
  label: string;
  total: number;
  active: boolean;
  segments: RunSegment[];
  percentOnFirst?: boolean;
  text: ReactNode;
  textTestId: string;
}) {
  const [first, ...rest] = props.segments;
  return (
    <div>
      <ProgressBar aria-label={props.label} style={{ height: '1.2rem' }}>
        {first && (
          <ProgressBar
            variant={first.variant}
            now={pct(first.n, props.total)}
            animated={props.active}
            striped={props.active}
            key={first.key}
            label={props.percentOnFirst && first.n ? `${pct(first.n, props.total)}%` : undefined}
          />
        )}
        {rest.map((s) => (
          <ProgressBar variant={s.variant} now={pct(s.n, props.total)} key={s.key} />
        ))}
      </ProgressBar>
      <div className="small text-body-secondary mt-1" data-testid={props.textTestId}>
        {props.text}
      </div>
    </div>
  );
}
