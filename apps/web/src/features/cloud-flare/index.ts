import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { DeleteZonePage, PurgeCachePage, UnlinkZonePage } from './confirm-pages.tsx';
import { CreateZonePage } from './create-zone-page.tsx';
import { SetRegistrarNameServersPage } from './set-registrar-name-servers-page.tsx';
import { LinkZonePage } from './link-zone-page.tsx';
import { UpdateSslSettingsPage, UpdateTls13SettingsPage } from './settings-pages.tsx';
import { UpdateDnsPage } from './update-dns-page.tsx';
import { UpdateFirewallRulesPage } from './update-firewall-rules-page.tsx';
import { UpdateRedirectRulesPage } from './update-redirect-rules-page.tsx';
import { ZoneInfoPage } from './zone-info-page.tsx';

const base = 'domains/:id/cloud-flare';

/** The cloud actions of a domain (spec 1 "Domain cloud-zone subviews", spec 2 §2), reached from the Cloud tab. */
export const cloudFlareRoutes: RouteObject[] = [
  { path: `${base}/create-zone`, element: createElement(CreateZonePage) },
  { path: `${base}/delete-zone`, element: createElement(DeleteZonePage) },
  { path: `${base}/link-zone`, element: createElement(LinkZonePage) },
  { path: `${base}/unlink-zone`, element: createElement(UnlinkZonePage) },
  { path: `${base}/zone-info`, element: createElement(ZoneInfoPage) },
  { path: `${base}/update-firewall-rules`, element: createElement(UpdateFirewallRulesPage) },
  { path: `${base}/update-ssl-settings`, element: createElement(UpdateSslSettingsPage) },
  { path: `${base}/update-tls-1-3-settings`, element: createElement(UpdateTls13SettingsPage) },
  { path: `${base}/update-dns`, element: createElement(UpdateDnsPage) },
  { path: `${base}/update-redirect-rules`, element: createElement(UpdateRedirectRulesPage) },
  { path: `${base}/purge-cache`, element: createElement(PurgeCachePage) },
  { path: `${base}/set-registrar-name-servers`, element: createElement(SetRegistrarNameServersPage) },
];
