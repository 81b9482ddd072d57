import { lazy, Suspense, useCallback, useState, type ReactNode } from 'react';
import { useLocation } from 'react-router';
import Container from 'react-bootstrap/Container';
import { useToken } from '../lib/token.ts';
import { useMe } from './auth-queries.ts';
import { Breadcrumbs } from './breadcrumbs.tsx';
import { useCommandPaletteShortcut } from './command-palette-shortcut.ts';
import { CreateMenu } from './create-menu.tsx';
import { DemoBanner } from './demo-banner.tsx';
import { Header } from './header.tsx';

// The side menu and the palette (Offcanvas, Modal) load when first opened: no first visit needs them (decision 048).
const SideMenu = lazy(() => import('./side-menu.tsx').then((m) => ({ default: m.SideMenu })));
const CommandPalette = lazy(() => import('./command-palette.tsx').then((m) => ({ default: m.CommandPalette })));

/** The console's frame: header with the menu, search, create menu and user, the demo banner, breadcrumbs, then the screen. */
export function Layout({ children }: { children: ReactNode }) {
  const token = useToken();
  const me = useMe(token);
  const location = useLocation();
  // The menu is open for the location it was opened on: any navigation closes it.
  const [menuOpenAt, setMenuOpenAt] = useState<string | null>(null);
  const menuOpen = menuOpenAt === location.key;
  const [menuWanted, setMenuWanted] = useState(false);
  const [paletteOpen, setPaletteOpen] = useState(false);
  const [paletteWanted, setPaletteWanted] = useState(false);
  const openPalette = useCallback(() => {
    setPaletteWanted(true);
    setPaletteOpen(true);
  }, []);
  useCommandPaletteShortcut(Boolean(token), openPalette);

  return (
    <>
      <Header
        token={token}
        userName={me.data ? me.data.user.name || me.data.user.username : undefined}
        onMenuClick={() => {
          setMenuWanted(true);
          setMenuOpenAt(location.key);
        }}
        onSearchClick={openPalette}
        // Shown once the user's rules are known: it offers only what they may create.
        createMenu={me.data ? <CreateMenu rules={me.data.rules} /> : undefined}
      />
      <DemoBanner />
      <Suspense fallback={null}>
        {token && menuWanted && <SideMenu show={menuOpen} onHide={() => setMenuOpenAt(null)} />}
      </Suspense>
      <Suspense fallback={null}>
        {token && paletteWanted && <CommandPalette show={paletteOpen} onHide={() => setPaletteOpen(false)} />}
      </Suspense>
      <Container as="main" fluid="lg" className="fd-main">
        <Breadcrumbs />
        {children}
      </Container>
    </>
  );
}
