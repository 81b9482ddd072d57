import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { crudRoutes } from '../../lib/crud-routes.ts';
import { FirewallRuleDeletePage } from './firewall-rule-delete-page.tsx';
import { FirewallRuleFormPage } from './firewall-rule-form-page.tsx';
import { FirewallRuleListPage } from './firewall-rule-list-page.tsx';

export const firewallRuleRoutes: RouteObject[] = crudRoutes('firewall-rules', {
  list: createElement(FirewallRuleListPage),
  form: createElement(FirewallRuleFormPage),
  delete: createElement(FirewallRuleDeletePage),
});
