import { Link, useRouteError } from 'react-router';
import Container from 'react-bootstrap/Container';

/** Last resort when a screen throws while rendering. Bootstrap's alert classes: no dismiss, so no transition code. */
export function RouteError() {
  const error = useRouteError();
  const detail = error instanceof Error ? error.message : undefined;
  return (
    <Container className="py-4">
      <div className="alert alert-danger" role="alert">
        <h1 className="alert-heading h4">Something went wrong</h1>
        {detail && <p className="mb-2 small">{detail}</p>}
        <Link to="/">Go to the starting page</Link>
      </div>
    </Container>
  );
}
