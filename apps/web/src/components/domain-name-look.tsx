import type { ReactNode } from 'react';
import { domainNameLook } from '@fleetdesk/contract';

/**
 * Under a domain name field: the name's Unicode and ASCII forms when they differ, and the look-alike warning when
 * a label mixes scripts (the contract's `domainNameLook`, the rule the API applies). Else `fallback`.
 */
export function DomainNameLookNote({
  value,
  fallback,
  stored,
}: {
  value: string;
  fallback?: ReactNode;
  /** The saved record's (ASCII) name: when the field still holds it, its ASCII form reads "Stored as". */
  stored?: string;
}) {
  const look = value.trim() ? domainNameLook(value) : null;
  if (!look || (!look.isIdn && !look.warning)) return <>{fallback}</>;
  return (
    <>
      {look.isIdn && (
        <span className="d-block">
          Unicode: <span className="text-body">{look.unicode}</span> · {look.ascii === stored ? 'Stored as' : 'ASCII:'}{' '}
          <code>{look.ascii}</code>
        </span>
      )}
      {look.warning && (
        <span className="d-block text-warning-emphasis fw-semibold" role="status">
          Look-alike name: {look.warning}
        </span>
      )}
    </>
  );
}
