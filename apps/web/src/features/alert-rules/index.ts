import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { crudRoutes } from '../../lib/crud-routes.ts';
import { RuleDeletePage } from './rule-delete-page.tsx';
import { RuleFormPage } from './rule-form-page.tsx';
import { RuleListPage } from './rule-list-page.tsx';

export const alertRuleRoutes: RouteObject[] = crudRoutes('alert-rules', {
  list: createElement(RuleListPage),
  form: createElement(RuleFormPage),
  delete: createElement(RuleDeletePage),
});
