import { NavLink } from 'react-router';
import Nav from 'react-bootstrap/Nav';
import Offcanvas from 'react-bootstrap/Offcanvas';
import { MENU_ITEMS } from './menu-items.ts';

export function SideMenu({ show, onHide }: { show: boolean; onHide: () => void }) {
  return (
    <Offcanvas show={show} onHide={onHide} placement="start" aria-labelledby="side-menu-title" style={{ width: 280 }}>
      <Offcanvas.Header closeButton>
        <Offcanvas.Title id="side-menu-title">Fleetdesk</Offcanvas.Title>
      </Offcanvas.Header>
      <Offcanvas.Body className="pt-0">
        <Nav as="nav" aria-label="Main menu" variant="pills" className="flex-column gap-1">
          {MENU_ITEMS.map((item) => (
            <Nav.Link key={item.to} as={NavLink} to={item.to} end={item.to === '/'}>
              {item.label}
            </Nav.Link>
          ))}
        </Nav>
      </Offcanvas.Body>
    </Offcanvas>
  );
}
