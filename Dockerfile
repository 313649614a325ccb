# syntax=docker/dockerfile:1
# One image for every Baret process (docs/adr/0011, docs/adr/0012):
#   docker run IMAGE gateway | identity | quota | job | analysis | notification | embedded
#   docker run IMAGE admin promote EMAIL
# Base images as build arguments: where no registry is reachable, local images can stand in
# (e.g. made from Debian's packages with mmdebstrap; they need Node.js 20.19+ and, for the runtime, apt).
ARG NODE_IMAGE=node:20-bookworm
ARG RUNTIME_IMAGE=node:20-bookworm-slim

# ---- build: dependencies (native modules compile here), the services and the web app --------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV CI=true \
    npm_config_fund=false \
    npm_config_audit=false \
    npm_config_update_notifier=false
# The manifests first, so that the dependency layer is rebuilt only when they change.
COPY package.json package-lock.json .npmrc ./
COPY patches/ patches/
COPY proto/package.json proto/
COPY services/platform/package.json services/platform/
COPY services/identity/package.json services/identity/
COPY services/quota/package.json services/quota/
COPY services/job/package.json services/job/
COPY services/analysis/package.json services/analysis/
COPY services/notification/package.json services/notification/
COPY services/gateway/package.json services/gateway/
COPY services/standalone/package.json services/standalone/
COPY web/package.json web/
RUN npm ci
COPY . .
# `npm run build:services` compiles every service to services/<name>/dist (ADR 0011); the PWA goes to
# web/dist (once: `npm run build` would build it twice here).
RUN npm run build:services && npm run build -w web

# ---- runtime: Node, ffmpeg (job and analysis probe and decode videos), the built workspace ----------
FROM ${RUNTIME_IMAGE} AS runtime
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ffmpeg ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data /tmp/baret \
 && chown 1000:1000 /data /tmp/baret
WORKDIR /app
# MALLOC_ARENA_MAX: glibc's malloc keeps at most two arenas, not eight per core for the detector
# threads, onnxruntime and libvips (docs/adr/0029).
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    BARET_MODE=distributed \
    PORT=8080 \
    BARET_DATA_DIR=/data \
    BARET_SCRATCH_DIR=/tmp/baret \
    WEB_DIST_DIR=/app/web/dist
# The code stays owned by root, read-only to the process. node_modules comes whole from the build
# stage (dev dependencies included): pruning needs the runtime dependencies of every workspace to be
# declared exactly, which the image does not bet on.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules/ node_modules/
COPY --from=build /app/bin/ bin/
COPY --from=build /app/proto/ proto/
COPY --from=build /app/services/ services/
COPY --from=build /app/web/dist/ web/dist/
COPY --from=build /app/web/package.json web/
# The image's `node` user, by number, so that Kubernetes can check runAsNonRoot.
USER 1000:1000
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/baret.mjs"]
CMD ["gateway"]
