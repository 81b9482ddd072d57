export interface ResourcePaths {
  list: string;
  create: string;
  edit: (id: string) => string;
  delete: (id: string) => string;
}

/** The web routes of a resource: /brands, /brands/create, /brands/{id}, /brands/{id}/delete. */
export function resourcePaths(base: string): ResourcePaths {
  const root = `/${base.replace(/^\/+|\/+$/g, '')}`;
  return {
    list: root,
    create: `${root}/create`,
    edit: (id) => `${root}/${encodeURIComponent(id)}`,
    delete: (id) => `${root}/${encodeURIComponent(id)}/delete`,
  };
}
