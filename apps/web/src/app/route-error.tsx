import { Link, useRouteError } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Container from 'react-bootstrap/Container';

/** Last resort when a screen throws while rendering. */
export function RouteError() {
  const error = useRouteError();
  const detail = error instanceof Error ? error.message : undefined;
  return (
    <Container className="py-4">
      <Alert variant="danger">
        <Alert.Heading as="h1" className="h4">
          Something went wrong
        </Alert.Heading>
        {detail && <p className="mb-2 small">{detail}</p>}
        <Link to="/">Go to the starting page</Link>
      </Alert>
    </Container>
  );
}
