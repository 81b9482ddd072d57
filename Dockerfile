# syntax=docker/dockerfile:1
# Fleetdesk: build the web app, then a slim runtime with the API's production dependencies only
# (no simulators, no web toolchain). The same image runs the API (default) and the job worker.

ARG NODE_IMAGE=node:22-bookworm-slim

# ---- build: every workspace, so the web app can be built ----
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
COPY packages/contract/package.json packages/contract/
COPY packages/simulators/package.json packages/simulators/
COPY packages/cli/package.json packages/cli/
COPY apps/api/package.json apps/api/
COPY apps/web/package.json apps/web/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# ---- deps: the API's production dependencies, without the simulators ----
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/contract/package.json packages/contract/
COPY packages/simulators/package.json packages/simulators/
COPY packages/cli/package.json packages/cli/
COPY apps/api/package.json apps/api/
COPY apps/web/package.json apps/web/
RUN npm ci --omit=dev --no-audit --no-fund --workspace @fleetdesk/api --workspace @fleetdesk/contract \
 && rm -rf node_modules/@fleetdesk/simulators node_modules/@fleetdesk/web \
 && npm cache clean --force

# ---- runtime ----
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data \
    WEB_DIST=/app/apps/web/dist
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --chown=root:root package.json ./
COPY --chown=root:root packages/contract ./packages/contract
COPY --chown=root:root apps/api/package.json ./apps/api/package.json
COPY --chown=root:root apps/api/src ./apps/api/src
COPY --chown=root:root scripts/healthcheck.mjs ./scripts/healthcheck.mjs
COPY --from=build --chown=root:root /src/apps/web/dist ./apps/web/dist
# The code belongs to root and is read-only to the app; only /data (the embedded database, the key file) is its own.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["node", "scripts/healthcheck.mjs"]
# Node is PID 1 and handles SIGTERM itself (graceful shutdown within SHUTDOWN_GRACE_SECONDS).
STOPSIGNAL SIGTERM
CMD ["node", "--import", "tsx", "apps/api/src/main.ts"]
