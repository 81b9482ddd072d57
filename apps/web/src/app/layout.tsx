import { useCallback, useState } from 'react';
import { Outlet, useLocation } from 'react-router';
import Container from 'react-bootstrap/Container';
import { useToken } from '../lib/token.ts';
import { Breadcrumbs } from './breadcrumbs.tsx';
import { CommandPalette, useCommandPaletteShortcut } from './command-palette.tsx';
import { DemoBanner } from './demo-banner.tsx';
import { Header } from './header.tsx';
import { SideMenu } from './side-menu.tsx';

export function Layout() {
  const token = useToken();
  const location = useLocation();
  // The menu is open for the location it was opened on: any navigation closes it.
  const [menuOpenAt, setMenuOpenAt] = useState<string | null>(null);
  const menuOpen = menuOpenAt === location.key;
  const [paletteOpen, setPaletteOpen] = useState(false);
  const openPalette = useCallback(() => setPaletteOpen(true), []);
  useCommandPaletteShortcut(Boolean(token), openPalette);

  return (
    <>
      <Header token={token} onMenuClick={() => setMenuOpenAt(location.key)} onSearchClick={openPalette} />
      <DemoBanner />
      {token && <SideMenu show={menuOpen} onHide={() => setMenuOpenAt(null)} />}
      {token && <CommandPalette show={paletteOpen} onHide={() => setPaletteOpen(false)} />}
      <Container as="main" fluid="lg" className="fd-main">
        <Breadcrumbs />
        <Outlet />
      </Container>
    </>
  );
}
