import { useParams } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import { LinkButton } from '../../components/link-button.tsx';
import { CLOUD_ACTIONS, type DomainActionEntry } from './domain-actions.ts';
import { domainPaths } from './domains-api.ts';

/** A domain action whose screen a later issue builds: says which, instead of a blank page. */
export function DomainLaterPage({ entry }: { entry?: DomainActionEntry }) {
  const { id = '', action } = useParams();
  // Cloud actions arrive through one route with :action; the cloud-flare feature's own routes take precedence.
  const found = entry ?? CLOUD_ACTIONS.find((a) => a.path === action);
  if (!found) {
    return (
      <section>
        <h1 className="h3 mb-3">Not found</h1>
        <LinkButton to={domainPaths.edit(id)} variant="outline-secondary">
          Back to domain
        </LinkButton>
      </section>
    );
  }
  return (
    <section style={{ maxWidth: 720 }}>
      <div className="d-flex flex-wrap align-items-center gap-2 mb-3">
        <h1 className="h3 mb-0 me-auto">{found.label}</h1>
        <LinkButton to={domainPaths.edit(id)} variant="outline-secondary">
          Back to domain
        </LinkButton>
      </div>
      <Alert variant="secondary">
        <strong>Not available yet.</strong> {found.label} comes with {found.comesWith}.
      </Alert>
    </section>
  );
}
