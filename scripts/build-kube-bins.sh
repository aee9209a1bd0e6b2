#!/usr/bin/env bash
# Build kube-apiserver + etcd (test control plane, envtest-style) from the Go module
# proxy using the wrapper module in test/kube-bins, and cache them OUTSIDE the clone.
#
#   scripts/build-kube-bins.sh        # prints the directory holding kube-apiserver and etcd
#
# Cache: ${KUBE_BINS_DIR:-$HOME/.cache/gateway-test/kube-bins}/k8s-<version>-<key>/
# where <key> hashes go.mod, go.sum and the two main.go files, so any change rebuilds.
# Cache hits return immediately. A cold build takes ~10 min on 2 cores (see
# test/kube-bins/README.md). GOMODCACHE/GOCACHE stay at Go's defaults (under $HOME).
# Only the last line of stdout is meaningful (the directory); progress goes to stderr.
set -euo pipefail

log() { printf 'build-kube-bins: %s\n' "$*" >&2; }

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mod_dir="$repo_root/test/kube-bins"
cache_root="${KUBE_BINS_DIR:-$HOME/.cache/gateway-test/kube-bins}"

key_files=(go.mod go.sum cmd/kube-apiserver/main.go cmd/etcd/main.go)
for f in "${key_files[@]}"; do
  [[ -f "$mod_dir/$f" ]] || { log "missing $mod_dir/$f"; exit 1; }
done

# k8s.io/kubernetes version straight from go.mod (used for the dir name and -X ldflags).
k8s_version="$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v1\./ { print $2; exit }' "$mod_dir/go.mod")"
[[ "$k8s_version" =~ ^v1\.([0-9]+)\.[0-9]+$ ]] || { log "cannot parse k8s.io/kubernetes version from go.mod"; exit 1; }
k8s_minor="${BASH_REMATCH[1]}"

key="$(cd "$mod_dir" && for f in "${key_files[@]}"; do printf '%s\n' "$f"; cat "$f"; done | sha256sum | cut -c1-16)"
out_dir="$cache_root/k8s-$k8s_version-$key"

is_complete() {
  [[ -x "$out_dir/kube-apiserver" && -x "$out_dir/etcd" && -f "$out_dir/KEY" ]] &&
    [[ "$(cat "$out_dir/KEY")" == "$key" ]]
}

# Fast path: the directory only ever appears via an atomic rename of a finished build.
if is_complete; then
  printf '%s\n' "$out_dir"
  exit 0
fi

mkdir -p "$cache_root"
# Serialise concurrent builders (e.g. parallel test runners); re-check after the lock.
exec 9>"$cache_root/.lock"
if ! flock -n 9; then
  log "another build is running; waiting for the lock on $cache_root/.lock"
  flock 9
fi
if is_complete; then
  printf '%s\n' "$out_dir"
  exit 0
fi

GO="${GO:-$(command -v go || true)}"
[[ -n "$GO" ]] || GO=/usr/local/go/bin/go
[[ -x "$GO" ]] || { log "go not found (set GO=/path/to/go)"; exit 1; }

tmp_dir="$(mktemp -d "$cache_root/.tmp.XXXXXX")"
trap 'rm -rf "$tmp_dir"' EXIT

log "building kube-apiserver + etcd for $k8s_version with $("$GO" version) (cold builds take ~10 min)"
start=$SECONDS
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$k8s_version"
ldflags+=" -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$k8s_minor"
(
  cd "$mod_dir"
  GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod \
    "$GO" build -trimpath -buildvcs=false -ldflags "$ldflags" \
    -o "$tmp_dir/" ./cmd/kube-apiserver ./cmd/etcd
) >&2

"$tmp_dir/kube-apiserver" --version >&2
"$tmp_dir/etcd" --version >&2
printf '%s\n' "$key" >"$tmp_dir/KEY"
chmod 755 "$tmp_dir"

# Leftover from an interrupted/foreign build with the same name: move it aside first.
if [[ -e "$out_dir" ]]; then
  rm -rf "$out_dir.stale"
  mv -T "$out_dir" "$out_dir.stale"
  rm -rf "$out_dir.stale"
fi
mv -T "$tmp_dir" "$out_dir"
trap - EXIT

log "built in $((SECONDS - start))s -> $out_dir"
printf '%s\n' "$out_dir"
