import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { UseQueryResult } from '@tanstack/react-query';
import Alert from 'react-bootstrap/Alert';
import Badge from 'react-bootstrap/Badge';
import Card from 'react-bootstrap/Card';
import { stateVariant } from '@fleetdesk/contract';
import { ErrorBox } from '../../components/error-box.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { RunStateBadge } from '../../components/run-state-badge.tsx';

/** A plan's state colour: the Jobs screen's (stateVariant), and amber for a paused plan, which waits and has not failed. */
export const planStateVariant = (state: string) => (state === 'paused' ? 'warning' : stateVariant(state));

type PlanState = { state: string; stateText: string };

/**
 * A plan's state in the API's words (stateText, the Jobs screen's too), never green over a failure. The fleet's look:
 * dark text on amber and cyan, a long state wraps. `plain`: Bootstrap's white text, as the import and the launch batch
 * have always shown it.
 */
export function PlanStateBadge({ plan, plain = false }: { plan: PlanState; plain?: boolean }) {
  const bg = planStateVariant(plan.state);
  if (plain) return <Badge bg={bg}>{plan.stateText}</Badge>;
  return (
    <RunStateBadge variant={bg} testId="plan-state">
      {plan.stateText}
    </RunStateBadge>
  );
}

/** What a kind's page puts in the frame: each slot gets the loaded plan. */
export type PlanPageProps<P extends { error: string | null }> = {
  query: UseQueryResult<P>;
  /** The load failure's words (the launch batch shows the API's message); else the generic one. */
  errorMessage?: (error: Error) => ReactNode;
  /**
   * card (default): the badge in the heading, the back link at the header's end, then the counts and a card with the
   * progress and the buttons (fleet plan, import). toolbar: the buttons at the header's end and the progress right
   * under it, the badge beside the heading, which names the plan alone (launch batch).
   */
  layout?: 'card' | 'toolbar';
  title: (plan: P) => ReactNode;
  badge: (plan: P) => ReactNode;
  back?: { to: string; label: string };
  /** Who planned it and when: the line under the header. */
  subtitle: (plan: P) => ReactNode;
  /** Shown before the plan's error (the fleet's revert note, the batch's confirmation). */
  notes?: (plan: P) => ReactNode;
  /** Shown after the plan's error (the fleet's job). */
  links?: (plan: P) => ReactNode;
  counts?: (plan: P) => ReactNode;
  progress: (plan: P) => ReactNode;
  buttons: (plan: P) => ReactNode;
  items: (plan: P) => ReactNode;
};

/**
 * One page for a plan of any kind (issue 41): the load, the header, who planned it, its error, its counts, its run's
 * progress and verbs, then its items (PlanItems). A kind brings only its pieces; the sections keep one order.
 */
export function PlanPage<P extends { error: string | null }>(props: PlanPageProps<P>) {
  const { query } = props;
  if (query.isPending) return <LoadingSpinner />;
  if (query.isError)
    return <ErrorBox message={props.errorMessage?.(query.error)} onRefresh={() => void query.refetch()} />;
  const plan = query.data;
  const toolbar = props.layout === 'toolbar';
  return (
    <section>
      {toolbar ? (
        <div className="d-flex flex-wrap align-items-center gap-2 mb-2">
          <h1 className="h3 mb-0">{props.title(plan)}</h1>
          {props.badge(plan)}
          <div className="ms-auto d-flex flex-wrap gap-2">{props.buttons(plan)}</div>
        </div>
      ) : (
        <div className="d-flex flex-wrap align-items-center gap-2 mb-1">
          <h1 className="h3 mb-0 me-auto">
            {props.title(plan)} {props.badge(plan)}
          </h1>
          {props.back && <Link to={props.back.to}>{props.back.label}</Link>}
        </div>
      )}
      {toolbar && props.progress(plan)}
      <p className={toolbar ? 'small text-body-secondary' : 'text-body-secondary mb-3'}>{props.subtitle(plan)}</p>
      {props.notes?.(plan)}
      {plan.error && <Alert variant="danger">{plan.error}</Alert>}
      {props.links?.(plan)}
      {props.counts?.(plan)}
      {!toolbar && (
        <Card body className="mb-3">
          <div className="d-flex flex-column gap-3">
            {props.progress(plan)}
            {props.buttons(plan)}
          </div>
        </Card>
      )}
      {props.items(plan)}
    </section>
  );
}
