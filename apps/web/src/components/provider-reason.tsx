import { explainProviderReason } from '@fleetdesk/contract';

/**
 * A reason as the operator reads it: a known provider code ("Cloudflare: 7003 …") becomes what it means and what
 * to do, with the provider's own words in a small line below; any other text shows as it is.
 */
export function ProviderReason({ text, className }: { text: string | null | undefined; className?: string }) {
  if (!text) return null;
  const known = explainProviderReason(text);
  if (!known) return <div className={className}>{text}</div>;
  return (
    <div className={className}>
      <div>{known.reason}</div>
      <div className="small text-body-secondary text-break" data-testid="provider-detail">
        {known.detail}
      </div>
    </div>
  );
}
