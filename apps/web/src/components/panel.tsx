import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { formatNumber } from '../lib/format.ts';

/** A dashboard panel: a titled box with an optional action (usually a link to the whole list) in its header. */
export function Panel({
  title,
  action,
  className,
  testId,
  children,
}: {
  title: string;
  action?: ReactNode;
  className?: string;
  testId?: string;
  children: ReactNode;
}) {
  return (
    <section className={`fd-panel${className ? ` ${className}` : ''}`} aria-label={title} data-testid={testId}>
      <div className="fd-panel-header">
        <h2 className="h6 mb-0">{title}</h2>
        {action}
      </div>
      <div className="fd-panel-body">{children}</div>
    </section>
  );
}

/** A panel of a few rows with "All" to the whole list, and a sentence when there is no row. */
export function ListPanel<T extends { _id: string }>({
  title,
  all,
  allLabel,
  items,
  empty,
  testId,
  rowClassName,
  row,
}: {
  title: string;
  /** Where "All" goes, and what it says to a screen reader. */
  all: string;
  allLabel: string;
  items: readonly T[];
  empty: ReactNode;
  testId: string;
  rowClassName?: string;
  row: (item: T) => ReactNode;
}) {
  return (
    <Panel
      title={title}
      action={
        <Link to={all} aria-label={allLabel}>
          All
        </Link>
      }
    >
      {items.length === 0 ? (
        <p className="text-body-secondary mb-0">{empty}</p>
      ) : (
        <ul className="fd-rows" data-testid={testId}>
          {items.map((x) => (
            <li key={x._id} className={rowClassName}>
              {row(x)}
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}

/** A figure that links to the list behind it; the tone colours it only when it is not zero. */
export function Figure({
  label,
  value,
  to,
  tone,
  testId,
}: {
  label: string;
  value: number;
  to: string;
  tone?: string;
  testId: string;
}) {
  return (
    <Link to={to} className="fd-figure" data-testid={testId} aria-label={`${label}: ${formatNumber(value)}`}>
      <span className={`fd-figure-value${tone && value > 0 ? ` text-${tone}` : ''}`}>{formatNumber(value)}</span>
      <span className="fd-figure-label">{label}</span>
    </Link>
  );
}
