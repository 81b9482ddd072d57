// The fleet's pages and what the domains list hands them: apart from fleet-api.ts, so that the lists that link
// here load no query code of the fleet's.
export const FLEET_PATH = '/fleet';
export const FLEET_NEW_PATH = '/fleet/new';
export const fleetPlanPath = (id: string) => `/fleet/${encodeURIComponent(id)}`;

/** The selection as the domains list sends it: ticked ids, or the list's filter as its URL holds it. */
export type FleetSelectionSent = { ids: string[] } | { filter: Record<string, string> };
/** What the domains list hands the new-plan page (router state: never in the URL, never 40,000 ids). */
export type FleetNewState = { selection: FleetSelectionSent; count: number };
