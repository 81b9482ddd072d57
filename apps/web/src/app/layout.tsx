import { useState } from 'react';
import { Outlet, useLocation } from 'react-router';
import Container from 'react-bootstrap/Container';
import { useToken } from '../lib/token.ts';
import { DemoBanner } from './demo-banner.tsx';
import { Header } from './header.tsx';
import { SideMenu } from './side-menu.tsx';

export function Layout() {
  const token = useToken();
  const location = useLocation();
  // The menu is open for the location it was opened on: any navigation closes it.
  const [menuOpenAt, setMenuOpenAt] = useState<string | null>(null);
  const menuOpen = menuOpenAt === location.key;

  return (
    <>
      <Header token={token} onMenuClick={() => setMenuOpenAt(location.key)} />
      <DemoBanner />
      {token && <SideMenu show={menuOpen} onHide={() => setMenuOpenAt(null)} />}
      <Container as="main" fluid="lg" className="py-4">
        <Outlet />
      </Container>
    </>
  );
}
