import { Outlet, useLocation } from 'react-router';
import Container from 'react-bootstrap/Container';
import { DialogProvider } from '../components/dialog-host.tsx';
import { useToken } from '../lib/token.ts';
import { CrumbTrail } from './crumb-trail.tsx';
import { DemoBanner } from './demo-banner.tsx';
import { Header } from './header.tsx';
import { crumbsFor } from './route-meta.ts';

/**
 * The frame of the pages a signed-out visitor opens (sign-in, single sign-on's return): the console's header and
 * demo banner, without what only the console needs (the query library, the menu, the search, the user's name),
 * which load with the first signed-in screen (signed-in-shell.tsx, decision 048).
 */
export function PublicLayout() {
  const token = useToken();
  const { pathname } = useLocation();
  return (
    <DialogProvider>
      <Header token={token} />
      <DemoBanner />
      <Container as="main" fluid="lg" className="fd-main">
        <CrumbTrail crumbs={crumbsFor(pathname)} pathname={pathname} />
        <Outlet />
      </Container>
    </DialogProvider>
  );
}
