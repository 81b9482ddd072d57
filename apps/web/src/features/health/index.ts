export { DomainHealthTab } from './domain-health-tab.tsx';
export { HealthBadge } from './health-badge.tsx';
export { HealthPanel } from './health-panel.tsx';
