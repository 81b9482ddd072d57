/** The Jobs screen listing one job, by its id (a plan's page links to its own job so). */
export const jobPath = (id: string) => `/jobs?id=${encodeURIComponent(id)}`;
