import { useState } from 'react';
import { Link } from 'react-router';
import Button from 'react-bootstrap/Button';
import Dropdown from 'react-bootstrap/Dropdown';
import ListGroup from 'react-bootstrap/ListGroup';
import Modal from 'react-bootstrap/Modal';
import { CLOUD_ACTIONS, DOMAIN_ACTIONS } from './domain-actions.ts';
import { domainPaths } from './domains-api.ts';

/** The Domain Actions menu: a dropdown of the domain's action routes, in the spec's order. */
export function DomainActionsMenu({ domainId }: { domainId: string }) {
  return (
    <Dropdown>
      <Dropdown.Toggle variant="outline-primary" id="domain-actions-menu">
        Domain Actions
      </Dropdown.Toggle>
      <Dropdown.Menu>
        {DOMAIN_ACTIONS.map((entry) => (
          <Dropdown.Item
            key={entry.path}
            as={Link}
            to={domainPaths.action(domainId, entry.path)}
            className={entry.danger ? 'text-danger' : undefined}
          >
            {entry.label}
          </Dropdown.Item>
        ))}
      </Dropdown.Menu>
    </Dropdown>
  );
}

/**
 * The cloud actions, as the Actions modal of spec 1 ("Domain cloud-zone subviews"): links to the subviews in
 * the spec's order; Delete Zone, Unlink Zone and Zone Info only when the domain has a zone id.
 */
export function CloudActionsMenu({
  domainId,
  cloudZoneId,
  label = 'Cloud Actions',
  variant = 'outline-primary',
}: {
  domainId: string;
  cloudZoneId: string | null;
  label?: string;
  variant?: string;
}) {
  const [show, setShow] = useState(false);
  const entries = CLOUD_ACTIONS.filter((entry) => !entry.needsZone || Boolean(cloudZoneId));
  return (
    <>
      <Button variant={variant} onClick={() => setShow(true)}>
        {label}
      </Button>
      <Modal show={show} onHide={() => setShow(false)} centered aria-labelledby="cloud-actions-title">
        {/* One Close button (the footer's): the header's × would be a second "Close". */}
        <Modal.Header>
          <Modal.Title as="h2" className="h4" id="cloud-actions-title">
            Cloud Actions
          </Modal.Title>
        </Modal.Header>
        <Modal.Body>
          <ListGroup as="nav" aria-label="Cloud actions">
            {entries.map((entry) => (
              <ListGroup.Item
                key={entry.path}
                as={Link}
                action
                to={domainPaths.cloudAction(domainId, entry.path)}
                className={entry.danger ? 'text-danger' : undefined}
              >
                {entry.label}
              </ListGroup.Item>
            ))}
          </ListGroup>
          {!cloudZoneId && (
            <p className="small text-body-secondary mt-3 mb-0">
              Delete Zone, Unlink Zone and Zone Info appear once the domain has a cloud zone.
            </p>
          )}
        </Modal.Body>
        <Modal.Footer>
          <Button variant="secondary" onClick={() => setShow(false)}>
            Close
          </Button>
        </Modal.Footer>
      </Modal>
    </>
  );
}

/** The edit page's header buttons: Cloud Actions and Domain Actions, each opening its menu. */
export function DomainMenus({ domainId, cloudZoneId }: { domainId: string; cloudZoneId: string | null }) {
  return (
    <>
      <CloudActionsMenu domainId={domainId} cloudZoneId={cloudZoneId} />
      <DomainActionsMenu domainId={domainId} />
    </>
  );
}
