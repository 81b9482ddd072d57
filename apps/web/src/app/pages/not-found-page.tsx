import { Link } from 'react-router';

export function NotFoundPage() {
  return (
    <section>
      <h1 className="h3 mb-3">Not found</h1>
      <p>There is no page at this address.</p>
      <Link to="/">Go to the starting page</Link>
    </section>
  );
}
