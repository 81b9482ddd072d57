import type { ReactNode } from 'react';
import type { RouteObject } from 'react-router';

export interface CrudRouteElements {
  list: ReactNode;
  /** Create and edit share one form page; it reads :id (absent on create). */
  form: ReactNode;
  delete?: ReactNode;
}

/** /<base>, /<base>/create, /<base>/:id and /<base>/:id/delete. */
export function crudRoutes(base: string, elements: CrudRouteElements): RouteObject[] {
  const routes: RouteObject[] = [
    { path: base, element: elements.list },
    { path: `${base}/create`, element: elements.form },
    { path: `${base}/:id`, element: elements.form },
  ];
  if (elements.delete) routes.push({ path: `${base}/:id/delete`, element: elements.delete });
  return routes;
}
