import { describe, expect, it } from 'vitest';
import { CLOUD_FLARE_MESSAGES, CLOUD_ZONES_PAGE_SIZE, type CloudZoneList } from '@fleetdesk/contract';
import { cloudOnSim, unique, useAdminCalls, useCloudflareSimApp } from '../../test/fixtures.ts';

// Link Zone's picker: GET /api/domains/:id/cloud-flare/zones lists the cloud account's zones a page at a time.
const { t, sim } = useCloudflareSimApp();
const { call, create, token } = useAdminCalls(t);
const zones = async (domainId: string, query = '', auth = token()) =>
  call('GET', `/api/domains/${domainId}/cloud-flare/zones${query}`, undefined, auth);
const account = () => cloudOnSim(sim, create);

describe('GET /api/domains/:id/cloud-flare/zones', () => {
  it("lists the account's zones with status and plan, and marks those another domain links", async () => {
    const { accountId, cloud } = await account();
    const tag = unique('z');
    const mine = sim.addZone(accountId, `${tag}-mine.com`, { status: 'pending' });
    const taken = sim.addZone(accountId, `${tag}-taken.com`, { status: 'active', plan: 'pro' });
    // A zone of another account never shows.
    const stranger = sim.addAccount({ email: `${unique('x')}@example.com`, token: `${unique('t')}-0123456789abcdef` });
    sim.addZone(stranger.accountId, `${tag}-stranger.com`);

    const domain = await create('domains', { domainName: `${tag}-mine.com`, status: 'active', cloudId: cloud._id });
    const other = await create('domains', { domainName: `${tag}-taken.com`, status: 'active', cloudId: cloud._id });
    const linked = await call('PUT', `/api/domains/${other._id}/cloud-flare/link-zone`, { cloudZoneId: taken.zoneId });
    expect(linked.statusCode, linked.body).toBe(200);

    const res = await zones(domain._id);
    expect(res.statusCode, res.body).toBe(200);
    const list = res.json().data as CloudZoneList;
    expect(list.totalCount).toBe(2);
    expect(list.pageSize).toBe(CLOUD_ZONES_PAGE_SIZE);
    expect(list.items).toEqual([
      { id: mine.zoneId, name: `${tag}-mine.com`, status: 'pending', plan: 'Free Website', linkedDomain: null },
      {
        id: taken.zoneId,
        name: `${tag}-taken.com`,
        status: 'active',
        plan: 'Pro Website',
        linkedDomain: { _id: other._id, domainName: `${tag}-taken.com` },
      },
    ]);

    // The domain's own zone is not "linked to another domain".
    await call('PUT', `/api/domains/${domain._id}/cloud-flare/link-zone`, { cloudZoneId: mine.zoneId });
    const again = (await zones(domain._id)).json().data as CloudZoneList;
    expect(again.items.find((z) => z.id === mine.zoneId)?.linkedDomain).toBeNull();
  });

  it('searches by name and pages', async () => {
    const { accountId, cloud } = await account();
    const tag = unique('p');
    for (let i = 0; i < CLOUD_ZONES_PAGE_SIZE + 3; i++)
      sim.addZone(accountId, `${tag}-${String(i).padStart(2, '0')}.net`);
    sim.addZone(accountId, `other-${tag}.org`);
    const domain = await create('domains', { domainName: `${tag}-00.net`, status: 'active', cloudId: cloud._id });

    const first = (await zones(domain._id, `?search=${tag}-`)).json().data as CloudZoneList;
    expect(first.totalCount).toBe(CLOUD_ZONES_PAGE_SIZE + 3);
    expect(first.items).toHaveLength(CLOUD_ZONES_PAGE_SIZE);
    expect(first.items[0]?.name).toBe(`${tag}-00.net`);
    const second = (await zones(domain._id, `?search=${tag}-&page=2`)).json().data as CloudZoneList;
    expect(second.page).toBe(2);
    expect(second.items.map((z) => z.name)).toEqual([`${tag}-20.net`, `${tag}-21.net`, `${tag}-22.net`]);

    const org = (await zones(domain._id, '?search=.ORG')).json().data as CloudZoneList;
    expect(org.items.map((z) => z.name)).toEqual([`other-${tag}.org`]);
  });

  it('refuses a domain without a cloud, bad paging, and a user without the domains rule', async () => {
    const bare = await create('domains', { domainName: `${unique('bare')}.com`, status: 'active' });
    const res = await zones(bare._id);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ message: CLOUD_FLARE_MESSAGES.noCloud });

    const { cloud } = await account();
    const domain = await create('domains', { domainName: `${unique('d')}.com`, status: 'active', cloudId: cloud._id });
    expect((await zones(domain._id, '?page=0')).statusCode).toBe(400);
    expect((await zones(domain._id, `?search=${'x'.repeat(300)}`)).statusCode).toBe(400);
    const other = await t.tokenFor(['cnv:clouds']);
    expect((await zones(domain._id, '', other)).statusCode).toBe(403);
  });
});
