import { createElement } from 'react';
import type { RouteObject } from 'react-router';
import { DomainCopyContentFilesPage, DomainGenerateSitemapPage, DomainReplacementPage } from './domain-job-pages.tsx';
import { JobsPage } from './jobs-page.tsx';

/** /jobs, and the domain actions that run as jobs (listed before the domains feature's routes). */
export const jobRoutes: RouteObject[] = [
  { path: 'jobs', element: createElement(JobsPage) },
  { path: 'domains/:id/generate-sitemap', element: createElement(DomainGenerateSitemapPage) },
  { path: 'domains/:id/copy-content-files', element: createElement(DomainCopyContentFilesPage) },
  { path: 'domains/:id/replacement', element: createElement(DomainReplacementPage) },
];
