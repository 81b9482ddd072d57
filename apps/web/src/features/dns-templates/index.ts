import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { crudRoutes } from '../../lib/crud-routes.ts';
import { DnsTemplateDeletePage } from './dns-template-delete-page.tsx';
import { DnsTemplateFormPage } from './dns-template-form-page.tsx';
import { DnsTemplateListPage } from './dns-template-list-page.tsx';

export const dnsTemplateRoutes: RouteObject[] = crudRoutes('dns-templates', {
  list: createElement(DnsTemplateListPage),
  form: createElement(DnsTemplateFormPage),
  delete: createElement(DnsTemplateDeletePage),
});
