import Breadcrumb from 'react-bootstrap/Breadcrumb';
import type { ContentFileItem } from '@fleetdesk/contract';

/** "/a/b" + "c" → "/a/b/c"; the root is "/". */
export const join = (dir: string, name: string) => `${dir === '/' ? '' : dir}/${name}`;
export const segmentsOf = (p: string) => p.split('/').filter(Boolean);

/** A folder or a page outline, drawn inline: emoji need a font the host may not have. */
export function TypeIcon({ type }: { type: ContentFileItem['type'] }) {
  return (
    <svg
      width="16"
      height="16"
      viewBox="0 0 16 16"
      aria-hidden
      className="me-1 text-body-secondary"
      style={{ verticalAlign: '-2px' }}
    >
      {type === 'directory' ? (
        <path d="M1.5 3.5h4l1.5 1.5h7.5v8h-13z" fill="currentColor" opacity="0.5" stroke="currentColor" />
      ) : (
        <path d="M3.5 1.5h6l3 3v10h-9z M9.5 1.5v3h3" fill="none" stroke="currentColor" />
      )}
    </svg>
  );
}

export function Crumbs({ root, path, onOpen }: { root: string; path: string; onOpen: (p: string) => void }) {
  const parts = segmentsOf(path);
  return (
    <Breadcrumb className="mb-2" aria-label="Folder">
      <Breadcrumb.Item
        active={!parts.length}
        linkAs="button"
        linkProps={{ className: 'btn btn-link p-0', type: 'button' }}
        onClick={() => onOpen('/')}
      >
        {root}
      </Breadcrumb.Item>
      {parts.map((name, i) => {
        const p = `/${parts.slice(0, i + 1).join('/')}`;
        const last = i === parts.length - 1;
        return (
          <Breadcrumb.Item
            key={p}
            active={last}
            linkAs="button"
            linkProps={{ className: 'btn btn-link p-0', type: 'button' }}
            onClick={() => onOpen(p)}
          >
            {name}
          </Breadcrumb.Item>
        );
      })}
    </Breadcrumb>
  );
}
