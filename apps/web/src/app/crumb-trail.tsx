import { useEffect } from 'react';
import { Link } from 'react-router';
import { pageTitle, type Crumb } from './route-meta.ts';

/** The trail on every page below a list, and the document title on every page. */
export function CrumbTrail({ crumbs, pathname }: { crumbs: Crumb[]; pathname: string }) {
  const title = pageTitle(crumbs, pathname);
  useEffect(() => {
    document.title = title;
  }, [title]);
  if (crumbs.length < 2) return null;
  return (
    <nav aria-label="breadcrumb" className="fd-breadcrumbs">
      <ol className="breadcrumb mb-3">
        {crumbs.map((c, index) => (
          <li
            key={index}
            className={`breadcrumb-item${c.to ? '' : ' active'}`}
            aria-current={c.to ? undefined : 'page'}
          >
            {c.to ? <Link to={c.to}>{c.label}</Link> : c.label}
          </li>
        ))}
      </ol>
    </nav>
  );
}
