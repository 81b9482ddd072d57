import Button from 'react-bootstrap/Button';

export type RunVerb = 'pause' | 'resume' | 'retry-failed';

/**
 * The run's verbs every kind of plan has (the engine's, decision 084): Pause while it runs; Resume when paused, or
 * failed with items left; Retry failed once a run has ended (or paused) with failures.
 */
export function PlanRunVerbs(props: {
  plan: { state: string; startedAt: string | null; run: { pending: number; failed: number } };
  busy: boolean;
  go: (verb: RunVerb) => void;
}) {
  const { plan, busy, go } = props;
  const s = plan.state;
  return (
    <>
      {s === 'running' && (
        <Button variant="warning" onClick={() => go('pause')} disabled={busy}>
          Pause
        </Button>
      )}
      {(s === 'paused' || (s === 'failed' && plan.startedAt && plan.run.pending > 0)) && (
        <Button onClick={() => go('resume')} disabled={busy}>
          Resume
        </Button>
      )}
      {plan.run.failed > 0 && ['completed_with_failures', 'failed', 'cancelled', 'paused'].includes(s) && (
        <Button variant="outline-primary" onClick={() => go('retry-failed')} disabled={busy}>
          Retry failed ({plan.run.failed})
        </Button>
      )}
    </>
  );
}
