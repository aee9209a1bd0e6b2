#!/usr/bin/env bash
# Keep the chart's CRDs and the plain-YAML install in step with their sources:
#   - charts/inference-gateway/crds/  <- copies of crds/
#   - manifests/install.yaml          <- `helm template` of the chart (namespace inference-gateway,
#     default values except that the keys come from Secrets you create, so that no key is baked
#     into a file everyone downloads), with the CRDs and the Namespace.
#
#   scripts/render-manifests.sh           # write both
#   scripts/render-manifests.sh --check   # write nothing; exit 1 (with a diff) when either is stale
#
# helm: $HELM_BIN, else the one scripts/install-helm-kubectl.sh installs (cached).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
chart="$repo_root/charts/inference-gateway"
install_yaml="$repo_root/manifests/install.yaml"
namespace=inference-gateway
release=inference-gateway

mode="write"
case "${1:-}" in
  "") ;;
  --check) mode="check" ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

helm="${HELM_BIN:-}"
if [[ -z "$helm" ]]; then
  helm="$(bash "$repo_root/scripts/install-helm-kubectl.sh" | tail -n 1)/helm"
fi
[[ -x "$helm" ]] || { echo "render-manifests: helm not found at $helm" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Render from a copy of the chart whose crds/ are fresh copies of the sources.
cp -R "$chart" "$work/chart"
rm -rf "$work/chart/crds"
mkdir -p "$work/chart/crds"
cp "$repo_root"/crds/*.yaml "$work/chart/crds/"

{
  cat <<HEADER
# inference-gateway: plain-YAML install, rendered from charts/inference-gateway by
# scripts/render-manifests.sh (do not edit by hand). Namespace: $namespace.
#
#   kubectl apply --server-side -f manifests/install.yaml
#   kubectl -n $namespace create secret generic $release-keys \\
#     --from-literal=signing-key="\$(openssl rand -hex 32)" \\
#     --from-literal=encryption-key="\$(openssl rand -hex 32)"
#   # optional platform provider keys, as environment variable names:
#   kubectl -n $namespace create secret generic $release-provider-keys --from-literal=OPENAI_API_KEY=sk-...
#
# Pods wait (CreateContainerConfigError) until the keys Secret exists. The image is
# inference-gateway:<appVersion>: push your build and edit the image lines, or use the chart.
# No credential is baked in here: make the platform's admin PAT as a labelled key Secret (README,
# "Keys as Secrets"); the chart makes one for you.
---
apiVersion: v1
kind: Namespace
metadata:
  name: $namespace
  labels:
    app.kubernetes.io/part-of: inference-gateway
    pod-security.kubernetes.io/enforce: restricted
HEADER
  "$helm" template "$release" "$work/chart" \
    --namespace "$namespace" \
    --include-crds \
    --set tokenSigningKey.existingSecret="$release-keys" \
    --set encryptionKey.existingSecret="$release-keys" \
    --set providerKeys.existingSecret="$release-provider-keys" \
    --set bootstrap.adminPat.enabled=false
} >"$work/install.yaml"

if [[ "$mode" == check ]]; then
  stale=0
  if ! diff -r -u "$repo_root/crds" "$chart/crds" >&2; then
    echo "render-manifests: charts/inference-gateway/crds differs from crds/" >&2
    stale=1
  fi
  if ! diff -u "$install_yaml" "$work/install.yaml" >&2; then
    echo "render-manifests: manifests/install.yaml is out of date" >&2
    stale=1
  fi
  if [[ "$stale" == 1 ]]; then
    echo "render-manifests: run scripts/render-manifests.sh (or make manifests)" >&2
    exit 1
  fi
  echo "render-manifests: up to date" >&2
  exit 0
fi

rm -rf "$chart/crds"
mkdir -p "$chart/crds" "$(dirname "$install_yaml")"
cp "$repo_root"/crds/*.yaml "$chart/crds/"
cp "$work/install.yaml" "$install_yaml"
echo "render-manifests: wrote $chart/crds and $install_yaml" >&2
