import type { ReactNode } from 'react';
import { Link } from 'react-router';
import Button from 'react-bootstrap/Button';

export interface HeaderProps {
  token: string | null;
  /** The signed-in user's name, once known (the console's shell asks for it; the signed-out pages do not). */
  userName?: string;
  /** The side menu and the search exist in the console only: without them, their buttons are not shown. */
  onMenuClick?: () => void;
  onSearchClick?: () => void;
  /**
   * The create menu, passed in by the signed-in shell's layout so that the signed-out pages, which render this
   * header too, never load it (decision 048).
   */
  createMenu?: ReactNode;
}

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

export function Header({ token, userName, onMenuClick, onSearchClick, createMenu }: HeaderProps) {
  return (
    // Bootstrap's navbar classes without react-bootstrap's Navbar, which brings its offcanvas and collapse code to
    // every first visit (decision 048); this header never collapses.
    <nav className="navbar navbar-expand bg-dark py-2" data-bs-theme="dark">
      <div className="container-fluid">
        {token && onMenuClick && (
          <Button
            variant="outline-light"
            size="sm"
            className="me-3 d-flex align-items-center"
            onClick={onMenuClick}
            aria-label="Open menu"
          >
            <svg width="20" height="20" viewBox="0 0 16 16" fill="currentColor" aria-hidden="true">
              <path
                fillRule="evenodd"
                d="M2.5 12a.5.5 0 0 1 .5-.5h10a.5.5 0 0 1 0 1H3a.5.5 0 0 1-.5-.5m0-4a.5.5 0 0 1 .5-.5h10a.5.5 0 0 1 0 1H3a.5.5 0 0 1-.5-.5m0-4a.5.5 0 0 1 .5-.5h10a.5.5 0 0 1 0 1H3a.5.5 0 0 1-.5-.5"
              />
            </svg>
          </Button>
        )}
        <Link className="navbar-brand" to="/">
          Fleetdesk
        </Link>
        {token && onSearchClick && (
          <Button
            variant="outline-light"
            size="sm"
            className="fd-search-button d-flex align-items-center gap-2 ms-auto ms-sm-3"
            onClick={onSearchClick}
            aria-label="Search"
            aria-keyshortcuts={isMac ? 'Meta+K' : 'Control+K'}
          >
            <svg width="14" height="14" viewBox="0 0 16 16" fill="currentColor" aria-hidden="true">
              <path d="M11.742 10.344a6.5 6.5 0 1 0-1.397 1.398h-.001l3.85 3.85a1 1 0 0 0 1.415-1.414l-3.85-3.85zM12 6.5a5.5 5.5 0 1 1-11 0 5.5 5.5 0 0 1 11 0" />
            </svg>
            <span className="d-none d-md-inline">Search</span>
            <kbd className="d-none d-md-inline">{isMac ? '⌘K' : 'Ctrl K'}</kbd>
          </Button>
        )}
        <div className="navbar-nav ms-auto align-items-center">
          {token && createMenu}
          {token && userName && (
            <Link
              to="/profile"
              className="nav-link me-2 d-none d-sm-block"
              data-testid="current-user"
              title="Your profile"
            >
              {userName}
            </Link>
          )}
          {token ? (
            <Link className="nav-link" to="/logout">
              Logout
            </Link>
          ) : (
            <Link className="nav-link" to="/login">
              Login
            </Link>
          )}
        </div>
      </div>
    </nav>
  );
}
