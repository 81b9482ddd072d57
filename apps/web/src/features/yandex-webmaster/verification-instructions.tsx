import type { ReactNode } from 'react';
import Card from 'react-bootstrap/Card';
import { yandexVerificationMarkers, type YandexVerificationType } from '@fleetdesk/contract';
import { CopyButton } from '../../components/copy-button.tsx';

/** One thing to publish: its label, the value in a box, and a copy button. */
function Snippet({ label, value, testId, what }: { label: string; value: string; testId: string; what: string }) {
  return (
    <div className="mb-2">
      <div className="small text-body-secondary mb-1">{label}</div>
      <div className="d-flex align-items-start gap-2">
        <pre className="fd-snippet mb-0 flex-grow-1" data-testid={testId}>
          {value}
        </pre>
        <CopyButton text={value} size="sm" ariaLabel={`Copy ${what}`} />
      </div>
    </div>
  );
}

const METHOD_TITLES: Record<YandexVerificationType, string> = {
  DNS: 'DNS record',
  META_TAG: 'Meta tag',
  HTML_FILE: 'HTML file',
};

/**
 * What to publish for each verification method Yandex accepts for the host, with copy buttons; `action` puts
 * the method's verify button beside its instructions.
 */
export function VerificationInstructions({
  uin,
  hostName,
  methods,
  action,
}: {
  uin: string;
  /** The host's name, where the DNS record goes. */
  hostName: string;
  methods: readonly YandexVerificationType[];
  action?: (method: YandexVerificationType) => ReactNode;
}) {
  const m = yandexVerificationMarkers(uin);
  const body: Record<YandexVerificationType, ReactNode> = {
    DNS: (
      <>
        <p className="small mb-2">
          Add a TXT record to the DNS of <strong>{hostName}</strong>:
        </p>
        <Snippet label="Name" value={hostName} testId="verify-dns-name" what="the record name" />
        <Snippet label="TXT value" value={m.dnsTxt} testId="verify-dns-value" what="the TXT value" />
      </>
    ),
    META_TAG: (
      <>
        <p className="small mb-2">
          Put this tag in the <code>&lt;head&gt;</code> of the home page:
        </p>
        <Snippet label="Meta tag" value={m.metaTag} testId="verify-meta-tag" what="the meta tag" />
      </>
    ),
    HTML_FILE: (
      <>
        <p className="small mb-2">Publish a file at the root of the site, with this name and content:</p>
        <Snippet label="File name" value={m.htmlFileName} testId="verify-file-name" what="the file name" />
        <Snippet label="File content" value={m.htmlFileContent} testId="verify-file-content" what="the file content" />
      </>
    ),
  };
  return (
    <div className="fd-verify-methods mb-3" data-testid="verification-instructions">
      {methods.map((method) => (
        <Card key={method} data-testid={`verify-method-${method}`}>
          <Card.Header className="d-flex flex-wrap align-items-center gap-2 py-2">
            <span className="fw-semibold me-auto" title={method}>
              {METHOD_TITLES[method]}
            </span>
            {action?.(method)}
          </Card.Header>
          <Card.Body className="py-2">{body[method]}</Card.Body>
        </Card>
      ))}
    </div>
  );
}
