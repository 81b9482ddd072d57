import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { ProfilePage } from './profile-page.tsx';

export const profileRoutes: RouteObject[] = [{ path: 'profile', element: createElement(ProfilePage) }];
