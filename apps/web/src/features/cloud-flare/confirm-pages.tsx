import { useParams } from 'react-router';
import type { Domain } from '@fleetdesk/contract';
import { useDeleteZone, usePurgeCache, useUnlinkZone } from './cloud-flare-api.ts';
import { CloudFlareSubpage } from './cloud-flare-subpage.tsx';
import { ConfirmAction } from './confirm-action.tsx';

function DeleteZone({ domain }: { domain: Domain }) {
  const remove = useDeleteZone(domain._id);
  return (
    <ConfirmAction
      domainId={domain._id}
      description={
        <p>
          Deletes the zone <code>{domain.cloudZoneId}</code> of <strong>{domain.domainNameUnicode}</strong> at
          Cloudflare, with its DNS records, rules and settings, and clears the zone and ruleset ids of the domain.
        </p>
      }
      question={`Are you sure you want to delete the Cloudflare zone of ${domain.domainNameUnicode}?`}
      label="Delete Zone"
      run={() => remove.mutateAsync()}
      done="Zone deleted successfully"
    />
  );
}

function UnlinkZone({ domain }: { domain: Domain }) {
  const unlink = useUnlinkZone(domain._id);
  return (
    <ConfirmAction
      domainId={domain._id}
      description={
        <p>
          Clears the zone id <code>{domain.cloudZoneId}</code> and the ruleset id of{' '}
          <strong>{domain.domainNameUnicode}</strong>. The zone itself stays at Cloudflare, unchanged; it can be linked
          again with its zone id.
        </p>
      }
      question={`Are you sure you want to unlink the Cloudflare zone from ${domain.domainNameUnicode}?`}
      label="Unlink Zone"
      variant="warning"
      run={() => unlink.mutateAsync()}
      done="Zone unlinked successfully"
    />
  );
}

function PurgeCache({ domain }: { domain: Domain }) {
  const purge = usePurgeCache(domain._id);
  return (
    <ConfirmAction
      domainId={domain._id}
      description={
        <p>
          Removes every cached file of <strong>{domain.domainNameUnicode}</strong> from Cloudflare&apos;s edge. The next
          requests go to the origin until the cache fills again.
        </p>
      }
      question={`Are you sure you want to purge the whole Cloudflare cache of ${domain.domainNameUnicode}?`}
      label="Purge Cache"
      variant="warning"
      run={() => purge.mutateAsync()}
      done="Cache purged successfully"
    />
  );
}

export function DeleteZonePage() {
  const { id = '' } = useParams();
  return (
    <CloudFlareSubpage id={id} title="Delete Zone" needs="zone">
      {(domain) => <DeleteZone domain={domain} />}
    </CloudFlareSubpage>
  );
}

export function UnlinkZonePage() {
  const { id = '' } = useParams();
  return (
    <CloudFlareSubpage id={id} title="Unlink Zone" needs="zone">
      {(domain) => <UnlinkZone domain={domain} />}
    </CloudFlareSubpage>
  );
}

export function PurgeCachePage() {
  const { id = '' } = useParams();
  return (
    <CloudFlareSubpage id={id} title="Purge Cache" needs="zone">
      {(domain) => <PurgeCache domain={domain} />}
    </CloudFlareSubpage>
  );
}
