#!/usr/bin/env bash
# End-to-end on a throwaway kind cluster (needs Docker and kind; helm and kubectl come from PATH or
# scripts/install-helm-kubectl.sh):
#   1. create the cluster, build the image and load it into the cluster;
#   2. helm install the chart (bundled Redis, CRDs) and wait for the rollout;
#   3. apply examples/ (Tenant, CachePolicies, Connections with their Secrets, ModelRoutes), plus an
#      in-cluster fake OpenAI-compatible upstream, a Connection to it and a workspace API key;
#   4. port-forward the gateway and send a chat completion through @e2e-fake/<model>.
#
#   make e2e                               # or: bash scripts/e2e-kind.sh
#   KEEP_CLUSTER=1 make e2e                # leave the cluster running afterwards
#   KIND_CLUSTER=name E2E_PORT=18080 ...   # cluster name, local port of the port-forward
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cluster="${KIND_CLUSTER:-inference-gateway-e2e}"
namespace=inference-gateway
release=inference-gateway
image="inference-gateway:e2e"
tenant_ns=tenant-acme
local_port="${E2E_PORT:-18080}"
work="$(mktemp -d)"
created_cluster=0
port_forward_pid=""

log() { printf '\n== e2e: %s\n' "$*" >&2; }
die() { printf 'e2e: %s\n' "$*" >&2; exit 1; }

cleanup() {
  local status=$?
  if [[ -n "$port_forward_pid" ]]; then kill "$port_forward_pid" 2>/dev/null || true; fi
  if [[ "$status" != 0 ]] && command -v kubectl >/dev/null 2>&1 && [[ "$created_cluster" == 1 || "${KEEP_CLUSTER:-}" == 1 ]]; then
    printf '\n== e2e: failed; state of the cluster:\n' >&2
    kubectl get pods -A -o wide >&2 || true
    kubectl -n "$namespace" logs "deploy/$release-operator" --tail=50 >&2 || true
    kubectl -n "$namespace" logs "deploy/$release-gateway" --tail=50 >&2 || true
  fi
  if [[ "$created_cluster" == 1 && "${KEEP_CLUSTER:-}" != 1 ]]; then
    log "deleting kind cluster $cluster (KEEP_CLUSTER=1 keeps it)"
    kind delete cluster --name "$cluster" >&2 || true
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

# --- tools ---------------------------------------------------------------------------------------
for tool in docker kind curl openssl sha256sum; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is required"
done
docker info >/dev/null 2>&1 || die "the Docker engine is not reachable (docker info failed)"
if ! command -v helm >/dev/null 2>&1 || ! command -v kubectl >/dev/null 2>&1; then
  tools_bin="$(bash "$repo_root/scripts/install-helm-kubectl.sh" | tail -n 1)"
  export PATH="$tools_bin:$PATH"
fi

# --- cluster and image -----------------------------------------------------------------------------
if kind get clusters 2>/dev/null | grep -qx "$cluster"; then
  log "reusing kind cluster $cluster"
else
  log "creating kind cluster $cluster"
  kind create cluster --name "$cluster" --wait 120s
  created_cluster=1
fi
kubectl config use-context "kind-$cluster" >/dev/null

log "building $image"
docker build -t "$image" "$repo_root"
kind load docker-image "$image" --name "$cluster"

# --- install -----------------------------------------------------------------------------------------
log "helm install $release (namespace $namespace)"
helm upgrade --install "$release" "$repo_root/charts/inference-gateway" \
  --namespace "$namespace" --create-namespace \
  --set image.repository=inference-gateway \
  --set image.tag=e2e \
  --set image.pullPolicy=Never \
  --set gateway.autoscaling.enabled=false \
  --set gateway.replicas=1 \
  --set controlPlane.replicas=1 \
  --wait --timeout 5m
for workload in "deployment/$release-gateway" "deployment/$release-controlplane" \
  "deployment/$release-operator" "statefulset/$release-redis"; do
  kubectl -n "$namespace" rollout status "$workload" --timeout=180s
done
kubectl -n "$namespace" get lease "$release-operator" \
  -o jsonpath='{"operator leader: "}{.spec.holderIdentity}{"\n"}' >&2

# --- a fake OpenAI-compatible upstream, run from the same image (node is in it) ------------------
log "deploying the fake upstream"
kubectl apply -f - <<'YAML'
apiVersion: v1
kind: Namespace
metadata:
  name: e2e-upstream
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: fake-openai
  namespace: e2e-upstream
data:
  server.mjs: |
    import { createServer } from 'node:http';
    createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => { body += chunk; });
      request.on('end', () => {
        if (request.method === 'POST' && request.url.endsWith('/chat/completions')) {
          const { model } = JSON.parse(body || '{}');
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({
            id: 'chatcmpl-e2e', object: 'chat.completion', created: Math.floor(Date.now() / 1000), model,
            choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the e2e upstream.' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 },
          }));
        } else {
          response.writeHead(404, { 'content-type': 'application/json' });
          response.end('{"error":{"message":"not found"}}');
        }
      });
    }).listen(8080, '0.0.0.0');
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: fake-openai
  namespace: e2e-upstream
spec:
  replicas: 1
  selector:
    matchLabels: {app: fake-openai}
  template:
    metadata:
      labels: {app: fake-openai}
    spec:
      automountServiceAccountToken: false
      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
        seccompProfile: {type: RuntimeDefault}
      containers:
        - name: fake-openai
          image: inference-gateway:e2e
          imagePullPolicy: Never
          command: [node, /fake/server.mjs]
          ports:
            - {name: http, containerPort: 8080}
          readinessProbe:
            tcpSocket: {port: http}
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities: {drop: [ALL]}
          volumeMounts:
            - {name: code, mountPath: /fake}
      volumes:
        - name: code
          configMap: {name: fake-openai}
---
apiVersion: v1
kind: Service
metadata:
  name: fake-openai
  namespace: e2e-upstream
spec:
  selector: {app: fake-openai}
  ports:
    - {name: http, port: 8080, targetPort: http}
YAML
kubectl -n e2e-upstream rollout status deployment/fake-openai --timeout=120s

# --- resources -----------------------------------------------------------------------------------------
log "applying examples/"
kubectl apply -f "$repo_root/examples/tenant.yaml"
# The operator creates the tenant's namespace; the rest of the examples live there.
for _ in $(seq 1 60); do
  kubectl get namespace "$tenant_ns" >/dev/null 2>&1 && break
  sleep 2
done
kubectl get namespace "$tenant_ns" >/dev/null || die "the operator did not create namespace $tenant_ns"
kubectl apply -f "$repo_root/examples/"
kubectl wait --for=condition=Ready tenant/acme --timeout=120s
kubectl -n "$tenant_ns" wait --for=condition=Ready cachepolicy/default --timeout=120s
kubectl -n "$tenant_ns" wait --for=condition=Ready modelroute/chat-default --timeout=120s

log "adding a Connection to the fake upstream and a workspace API key"
upstream_key="e2e-upstream-key-$(openssl rand -hex 8)"
api_key="tt_sk_$(openssl rand -base64 32 | tr '+/' '-_' | tr -d '=\n')"
api_key_hash="$(printf '%s' "$api_key" | sha256sum | cut -d' ' -f1)"
kubectl apply -f - <<YAML
apiVersion: v1
kind: Secret
metadata:
  name: e2e-fake-key
  namespace: $tenant_ns
type: Opaque
stringData:
  apiKey: $upstream_key
---
apiVersion: gateway.service.io/v1alpha1
kind: Connection
metadata:
  name: e2e-fake
  namespace: $tenant_ns
spec:
  provider: openai-compatible
  baseUrl: http://fake-openai.e2e-upstream.svc.cluster.local:8080/v1
  secretRef:
    name: e2e-fake-key
---
# A workspace API key: only its SHA-256 is stored (the plaintext stays in this script).
apiVersion: v1
kind: Secret
metadata:
  name: api-key-e2e
  namespace: $tenant_ns
  labels:
    gateway.service.io/credential: api-key
type: Opaque
stringData:
  id: key_e2e
  hash: $api_key_hash
  workspace: main
  grants: chat:write,embed
YAML
kubectl -n "$tenant_ns" wait --for=condition=Ready connection/e2e-fake --timeout=120s
kubectl -n "$tenant_ns" get connections -o wide
if kubectl -n "$tenant_ns" get connection e2e-fake -o yaml | grep -qF "$upstream_key"; then
  die "the upstream key appears in the Connection object"
fi

# --- a request through the gateway -------------------------------------------------------------------
log "port-forwarding svc/$release-gateway to localhost:$local_port"
kubectl -n "$namespace" port-forward "svc/$release-gateway" "$local_port:8080" >"$work/port-forward.log" 2>&1 &
port_forward_pid=$!
for _ in $(seq 1 30); do
  curl -fsS "http://127.0.0.1:$local_port/healthz" >/dev/null 2>&1 && break
  sleep 1
done
curl -fsS "http://127.0.0.1:$local_port/readyz" >&2 || die "the gateway is not ready"

log "POST /v1/chat/completions with model @e2e-fake/gpt-4o-mini"
status=""
for _ in $(seq 1 30); do
  # The key and the Connection reach the gateway through the operator and the config store's
  # change feed; retry while they propagate.
  status="$(curl -sS -o "$work/response.json" -D "$work/headers.txt" -w '%{http_code}' \
    "http://127.0.0.1:$local_port/v1/chat/completions" \
    -H "authorization: Bearer $api_key" \
    -H 'content-type: application/json' \
    -d '{"model":"@e2e-fake/gpt-4o-mini","messages":[{"role":"user","content":"Say hello"}]}')" || status=000
  [[ "$status" == 200 ]] && break
  sleep 2
done
cat "$work/headers.txt" >&2
cat "$work/response.json" >&2
printf '\n' >&2
[[ "$status" == 200 ]] || die "the gateway answered $status"
grep -q 'Hello from the e2e upstream.' "$work/response.json" || die "unexpected response body"
grep -qi '^x-service-credential-slug: e2e-fake' "$work/headers.txt" || die "the request was not routed through the Connection"

log "passed: a chat completion went through the gateway and the Connection created with kubectl"
