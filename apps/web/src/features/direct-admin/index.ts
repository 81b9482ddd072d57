export { DirectAdminTab } from './direct-admin-tab.tsx';
