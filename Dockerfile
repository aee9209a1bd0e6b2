# syntax=docker/dockerfile:1
# The image the Helm chart runs: one entry point, three roles chosen by the first argument
# (`gateway`, `controlplane`, `operator`; `standalone` for a laptop). Node runs the TypeScript
# sources directly (type stripping), so there is no build step.
#
#   docker build -t inference-gateway:0.1.0 .
#   docker run --rm -p 8080:8080 -e HOST=0.0.0.0 inference-gateway:0.1.0 standalone

FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only, at the locked versions. `npm ci` refuses this lockfile when the
# registry in use lacks Biome's non-Linux optional packages (a dev dependency); `npm install` with
# the lockfile installs the same locked versions, so it is the fallback. No package needs an
# install script.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
    || npm install --omit=dev --ignore-scripts --no-audit --no-fund \
    && npm cache clean --force

FROM node:24-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --chown=root:root package.json ./
COPY --chown=root:root src ./src
# Owned by root, run as `node` (uid 1000): the code cannot be modified at run time, and the root
# filesystem can be mounted read-only (the chart gives /tmp an emptyDir for STATE_DIR and scratch).
USER node
ENV HOST=0.0.0.0 \
    STATE_DIR=/tmp/gateway-state
EXPOSE 8080 8081 8082
ENTRYPOINT ["node", "src/main/cli.ts"]
CMD ["gateway"]
