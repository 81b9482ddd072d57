import type { ReactNode } from 'react';
import Badge from 'react-bootstrap/Badge';

/**
 * A run's state in the API's words (a job's or a plan's stateText: failures counted), in the colour of the one rule
 * (`stateVariant`): dark text where the colour is light, and a long state wraps.
 */
export function RunStateBadge({ variant, testId, children }: { variant: string; testId: string; children: ReactNode }) {
  return (
    <Badge
      bg={variant}
      text={variant === 'warning' || variant === 'info' ? 'dark' : undefined}
      className="text-wrap text-start"
      data-testid={testId}
    >
      {children}
    </Badge>
  );
}
