export { DomainTrafficTab } from './domain-traffic-tab.tsx';
