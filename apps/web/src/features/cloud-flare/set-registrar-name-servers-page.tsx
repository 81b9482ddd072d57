import { Link, useParams } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Spinner from 'react-bootstrap/Spinner';
import { REGISTRAR_TEXT, type Domain } from '@fleetdesk/contract';
import { errorMessage } from '../../lib/api-error.ts';
import { registrarPaths, useSetRegistrarNameServers } from '../domain-registrators/registrar-api.ts';
import { CloudFlareSubpage } from './cloud-flare-subpage.tsx';
import { NameServers } from './name-servers.tsx';

/**
 * Beyond the spec: points the domain at its Cloudflare zone by setting the zone's name servers at the
 * registrar (Namecheap domains.dns.setCustom), and shows the registrar's name servers before and after.
 */
function SetNameServers({ domain }: { domain: Domain }) {
  const run = useSetRegistrarNameServers(domain._id);
  if (!domain.domainRegistratorId) {
    return (
      <Alert variant="warning" data-testid="cloud-flare-refusal">
        {REGISTRAR_TEXT.noRegistrator}: {REGISTRAR_TEXT.chooseRegistrator}.{' '}
        <Link className="alert-link" to={registrarPaths.registratorTab(domain._id)}>
          Open the Domain Registrator tab
        </Link>
      </Alert>
    );
  }
  const result = run.data;
  return (
    <>
      <p>
        Sets the name servers of <strong>{domain.domainNameUnicode}</strong> at its registrator (
        {domain.domainRegistrator?.name ?? 'registrator'}) to the Cloudflare zone’s name servers. Namecheap URL and
        email forwarding stop for the domain.
      </p>
      <Button onClick={() => run.mutate()} disabled={run.isPending}>
        {run.isPending && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
        Set name servers
      </Button>
      {run.isError && (
        <Alert variant="danger" className="mt-3" data-testid="registrar-ns-error">
          {errorMessage(run.error)}
        </Alert>
      )}
      {result && (
        <Alert variant={result.updated ? 'success' : 'warning'} className="mt-3" data-testid="registrar-ns-result">
          <div className="fw-semibold mb-2">
            {result.updated ? 'Name servers updated' : 'Namecheap did not update them'}
          </div>
          <dl className="row mb-0">
            <dt className="col-sm-3">Before</dt>
            <dd className="col-sm-9" data-testid="registrar-ns-before">
              <NameServers nameServers={result.before} />
            </dd>
            <dt className="col-sm-3">After</dt>
            <dd className="col-sm-9" data-testid="registrar-ns-after">
              <NameServers nameServers={result.after} />
            </dd>
          </dl>
        </Alert>
      )}
    </>
  );
}

export function SetRegistrarNameServersPage() {
  const { id = '' } = useParams();
  return (
    <CloudFlareSubpage id={id} title="Set name servers at registrar" needs="zone">
      {(domain) => <SetNameServers domain={domain} />}
    </CloudFlareSubpage>
  );
}
