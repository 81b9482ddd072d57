import { CopyButton } from '../../components/copy-button.tsx';

/** The zone's name servers, each ready to copy, and all of them at once (one per line, as registrars take them). */
export function NameServers({ nameServers }: { nameServers: string[] }) {
  if (!nameServers.length) return <span className="text-body-secondary">None assigned yet</span>;
  return (
    <div data-testid="name-servers">
      <ul className="list-unstyled mb-2">
        {nameServers.map((ns) => (
          <li key={ns} className="d-flex align-items-center gap-2 mb-1">
            <code className="fs-6 user-select-all">{ns}</code>
            <CopyButton text={ns} size="sm" />
          </li>
        ))}
      </ul>
      {nameServers.length > 1 && <CopyButton text={nameServers.join('\n')} size="sm" label="Copy all" />}
    </div>
  );
}
