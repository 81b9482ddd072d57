import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { crudRoutes } from '../../lib/crud-routes.ts';
import { ChannelDeletePage } from './channel-delete-page.tsx';
import { ChannelFormPage } from './channel-form-page.tsx';
import { ChannelListPage } from './channel-list-page.tsx';

export const notificationChannelRoutes: RouteObject[] = crudRoutes('notification-channels', {
  list: createElement(ChannelListPage),
  form: createElement(ChannelFormPage),
  delete: createElement(ChannelDeletePage),
});
