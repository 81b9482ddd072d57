export interface MenuItem {
  label: string;
  to: string;
}

/** The sections, in the side menu's order (the starting page lists the same). */
export const SECTIONS: readonly MenuItem[] = [
  { label: 'Users', to: '/users' },
  { label: 'Roles', to: '/roles' },
  { label: 'Sessions', to: '/sessions' },
  { label: 'Domains', to: '/domains' },
  { label: 'Fleet', to: '/fleet' },
  { label: 'Imports', to: '/imports' },
  { label: 'Launches', to: '/launches' },
  { label: 'Clouds', to: '/clouds' },
  { label: 'Proxies', to: '/proxies' },
  { label: 'Servers', to: '/servers' },
  { label: 'Brands', to: '/brands' },
  { label: 'Regions', to: '/regions' },
  { label: 'Firewall Rules', to: '/firewall-rules' },
  { label: 'DNS Templates', to: '/dns-templates' },
  { label: 'Launch Profiles', to: '/launch-profiles' },
  { label: 'Domain Registrators', to: '/domain-registrators' },
  { label: 'Yandex Webmaster', to: '/yandex-webmaster' },
  { label: 'Google Search Console', to: '/google-search' },
  { label: 'Audit Log', to: '/audit-log' },
  { label: 'Jobs', to: '/jobs' },
  { label: 'Alerts', to: '/alerts' },
];

export const MENU_ITEMS: readonly MenuItem[] = [
  { label: 'Home', to: '/' },
  ...SECTIONS,
  { label: 'Profile', to: '/profile' },
  { label: 'Logout', to: '/logout' },
];
