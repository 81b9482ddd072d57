#!/usr/bin/env node
// The container's HEALTHCHECK: healthy when GET /readyz answers 200 (the database answers) within 4 s.
const port = Number(process.env.PORT) || 3000;
const ctl = AbortSignal.timeout(4000);
fetch(`http://127.0.0.1:${port}/readyz`, { signal: ctl })
  .then((r) => process.exit(r.status === 200 ? 0 : 1))
  .catch(() => process.exit(1));
