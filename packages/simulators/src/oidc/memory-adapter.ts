/**
 * The simulated provider's storage: in memory, one per provider, as the simulator is one process on loopback.
 * oidc-provider's own memory adapter works the same but prints a warning that it is for development at every
 * start (it appeared in the demo's log, issue 42); naming our own says that this is on purpose.
 */
type Payload = Record<string, unknown> & { uid?: string; grantId?: string; userCode?: string; consumed?: number };

export function createMemoryAdapterFactory() {
  const store = new Map<string, { payload: Payload; expiresAt: number }>();
  const index = new Map<string, string>();
  const grants = new Map<string, string[]>();
  const live = (key: string | undefined) => {
    const e = key === undefined ? undefined : store.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= Date.now()) {
      store.delete(key!);
      return undefined;
    }
    return e.payload;
  };

  return (model: string) => {
    const key = (id: string) => `${model}:${id}`;
    return {
      async upsert(id: string, payload: Payload, expiresIn: number) {
        store.set(key(id), { payload, expiresAt: Date.now() + expiresIn * 1000 });
        if (model === 'Session' && payload.uid) index.set(`uid:${payload.uid}`, id);
        if (payload.userCode) index.set(`userCode:${payload.userCode}`, id);
        if (payload.grantId) grants.set(payload.grantId, [...(grants.get(payload.grantId) ?? []), key(id)]);
      },
      async find(id: string) {
        return live(key(id));
      },
      async findByUid(uid: string) {
        const id = index.get(`uid:${uid}`);
        return id === undefined ? undefined : live(key(id));
      },
      async findByUserCode(userCode: string) {
        const id = index.get(`userCode:${userCode}`);
        return id === undefined ? undefined : live(key(id));
      },
      async consume(id: string) {
        const p = live(key(id));
        if (p) p.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id: string) {
        store.delete(key(id));
      },
      async revokeByGrantId(grantId: string) {
        for (const k of grants.get(grantId) ?? []) store.delete(k);
        grants.delete(grantId);
      },
    };
  };
}
