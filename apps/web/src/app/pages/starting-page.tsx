import { Link } from 'react-router';
import ListGroup from 'react-bootstrap/ListGroup';
import { SECTIONS } from '../menu-items.ts';

export function StartingPage() {
  return (
    <section style={{ maxWidth: 480 }}>
      <h1 className="h3 mb-3">Starting Page</h1>
      <ListGroup as="ul">
        {SECTIONS.map((section) => (
          <ListGroup.Item as="li" key={section.to}>
            <Link to={section.to}>{section.label}</Link>
          </ListGroup.Item>
        ))}
      </ListGroup>
    </section>
  );
}
