"""How far the pair verifier goes with more compute than the recipe's hour on 2 cores: a measurement
for a GPU machine, not part of the recipe (bench/README.md, "The ceiling on a GPU").

    # here, with the recipe's virtual environment (scripts/train-pair-verifier.sh makes it):
    python training/verifier/ceiling.py pack --base <base model folder> --out <folder>
    # on the GPU machine, with <folder> beside this checkout's training/verifier/:
    python training/verifier/ceiling.py run --packed <folder> --out <results folder>

`pack` writes what `run` reads, about 53 MB: the recipe's training pairs exactly as train.py
assembles them (seed 27, real weight 3, unseen-R to LU), the evaluation sets with each pair's gate
similarity (the validation sets, the swap groups, LV to MG and MH to MK, as bench/verifier-cuts.ts
groups them), the base model's weights in float16 and its tokenizer.

`run` trains each configuration in CONFIGS as a process of its own on the GPU (the recipe's model,
data, batch, learning rate and schedule, in float32; not its arithmetic, so not its bytes), stops
one that is still training after --seconds, then writes every model's float scores on the
evaluation sets and its logits on the training pairs in both orders (results.npz), a summary with
the verifier-alone figures (summary.json: near misses served and paraphrase hits kept at or above
the 0.8 gate, at 0.5) and the float16 state of the best on pooled validation.
"""

import argparse
import gzip
import json
import multiprocessing
import os
import random
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.numpy import load_file, save_file
from tokenizers import Tokenizer

from dataset import assemble, read_jsonl, reserved_sets
from train import (Embedder, PairVerifier, batch_tensors, encode, epoch_batches, gate_figures, optimiser,
                   read_similarity_file, similarity_key)

# name: (layers, epochs, seed, word embeddings trained). The recipe is r27 (it freezes the word
# embeddings because on a CPU they are most of each step's optimiser time).
CONFIGS = {
    "r27": (3, 2, 27, False),
    "r28": (3, 2, 28, False),
    "r29": (3, 2, 29, False),
    "L3e4": (3, 4, 27, False),
    "L6e2": (6, 2, 27, False),
    "L6e4": (6, 4, 27, False),
    "L3e2w": (3, 2, 27, True),
    "L6e4w": (6, 4, 27, True),
}
MAX_TOKENS, BATCH, LR = 128, 32, 2e-4
POOLED = ("unseen-B", "holdout-10+11", "written-last")


def pack(args):
    data = Path(__file__).parent / "data"
    weights = load_file(str(Path(args.base) / "model.safetensors"))
    tokenizer = Tokenizer.from_file(str(Path(args.base) / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    embedder = Embedder(weights, tokenizer)
    kept = read_similarity_file(data / "similarities.bin")

    def similarity(pairs):
        keys = [similarity_key(f"{p['a']}\t{p['b']}") for p in pairs]
        texts = sorted({t for p, k in zip(pairs, keys) if k not in kept for t in (p["a"], p["b"])}, key=len)
        for start in range(0, len(texts), 512):
            embedder.embed(texts[start: start + 512])
        return [kept[k] if k in kept else float((embedder.cache[p["a"]] * embedder.cache[p["b"]]).sum())
                for p, k in zip(pairs, keys)]

    train, sets, counts = assemble(data, args.bench, similarity, 27, 3, more="R-LU")
    swap = sorted((data / "swap").glob("*.jsonl"))
    sets["swap-first4"] = [p for f in swap if not f.name.endswith("-part-05.jsonl") for p in read_jsonl(f)]
    sets["swap-last"] = [p for f in swap if f.name.endswith("-part-05.jsonl") for p in read_jsonl(f)]
    for first, last in (("LV", "MG"), ("MH", "MK")):
        sets[f"{first}-{last}"] = [p for n in reserved_sets(args.bench, first, last) for p in read_jsonl(Path(args.bench) / n)]
    packed = {"counts": counts, "train": [[p["a"], p["b"], int(p["label"] == "paraphrase")] for p in train],
              "eval": {name: [[p["a"], p["b"], int(p["label"] == "paraphrase"), p.get("kind", "?"), s]
                              for p, s in zip(pairs, similarity(pairs))] for name, pairs in sets.items()}}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with gzip.open(out / "data.json.gz", "wt") as handle:
        json.dump(packed, handle)
    save_file({k: v.astype(np.float16) for k, v in weights.items()}, str(out / "base-fp16.safetensors"))
    (out / "tokenizer.json").write_bytes((Path(args.base) / "tokenizer.json").read_bytes())
    print(f"packed {len(train)} training pairs and {sum(map(len, sets.values()))} evaluation pairs into {out}")


# What the training processes share (read before they fork).
SHARED = {}


def load(args):
    packed = Path(args.packed)
    with gzip.open(packed / "data.json.gz", "rt") as handle:
        data = json.load(handle)
    if args.limit:
        data["train"] = data["train"][: args.limit]
        data["eval"] = {name: pairs[: args.limit] for name, pairs in data["eval"].items()}
    tokenizer = Tokenizer.from_file(str(packed / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    SHARED["data"] = data
    SHARED["weights"] = {k: v.astype(np.float32) for k, v in load_file(str(packed / "base-fp16.safetensors")).items()}
    SHARED["orders"] = [[encode(tokenizer, a, b, MAX_TOKENS) for a, b, _ in data["train"]],
                        [encode(tokenizer, b, a, MAX_TOKENS) for a, b, _ in data["train"]]]
    SHARED["labels"] = [float(label) for _, _, label in data["train"]]
    SHARED["eval"] = {name: [encode(tokenizer, p[0], p[1], MAX_TOKENS) for p in pairs] for name, pairs in data["eval"].items()}


@torch.no_grad()
def logits_of(model, encoded, device, batch=512):
    model.eval()
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i][0]))
    out = np.zeros(len(encoded), dtype=np.float32)
    for start in range(0, len(order), batch):
        chosen = order[start: start + batch]
        ids, mask, types = batch_tensors([encoded[i] for i in chosen])
        out[chosen] = model(ids.to(device), mask.to(device), types.to(device)).float().cpu().numpy()
    return out


def train_one(name, args):
    layers, epochs, seed, words_trained = CONFIGS[name]
    device = args.device
    torch.set_num_threads(2)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    started = time.time()
    model = PairVerifier(layers)
    model.load_base(SHARED["weights"])
    torch.nn.init.normal_(model.head.weight, std=0.02)
    torch.nn.init.zeros_(model.head.bias)
    model.words.weight.requires_grad_(words_trained)
    model.to(device)
    ab, ba = SHARED["orders"]
    total = int(len(ab) // BATCH * epochs)
    if args.steps:
        total = min(total, args.steps)
    trained, optimizer, schedule = optimiser(model, LR, total, **({"fused": True} if device == "cuda" else {"foreach": True}))
    order = random.Random(seed)
    lengths = [len(ids) for ids, _ in ab]
    losses, step, stopped = [], 0, None
    running = torch.zeros((), device=device)
    model.train()
    while step < total and stopped is None:
        for batch in epoch_batches(lengths, order, BATCH):
            if step >= total:
                break
            if time.time() - started > args.seconds:
                stopped = step
                break
            ids, mask, types = batch_tensors([(ba if order.random() < 0.5 else ab)[i] for i in batch])
            labels = torch.tensor([SHARED["labels"][i] for i in batch], device=device)
            logits = model(ids.to(device, non_blocking=True), mask.to(device, non_blocking=True),
                           types.to(device, non_blocking=True))
            loss = F.binary_cross_entropy_with_logits(logits, labels)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_([p for _, p in trained], 1.0)
            optimizer.step()
            schedule.step()
            running += loss.detach()  # read every 100 steps: reading each one would wait for the GPU
            step += 1
            if step % 100 == 0:
                losses.append(round(float(running) / 100, 4))
                running.zero_()
            if step % 2000 == 0:
                print(f"{name} step {step}/{total} loss {losses[-1]} {time.time() - started:.0f}s", flush=True)
    train_seconds = time.time() - started
    scores = {k: 1 / (1 + np.exp(-logits_of(model, v, device))) for k, v in SHARED["eval"].items()}
    train_logits = np.stack([logits_of(model, ab, device), logits_of(model, ba, device)], 1).astype(np.float16)
    work = Path(args.work)
    np.savez(work / f"{name}.npz", train_logits=train_logits, **{f"eval/{k}": v for k, v in scores.items()})
    state = {k: v.detach().half().cpu() for k, v in model.state_dict().items() if words_trained or k != "words.weight"}
    torch.save(state, work / f"{name}.pt")
    info = {"layers": layers, "epochs": epochs, "seed": seed, "words_trained": words_trained, "steps": step, "total": total,
            "stopped_early_at": stopped, "train_seconds": round(train_seconds), "loss_every_100_steps": losses}
    (work / f"{name}.json").write_text(json.dumps(info))
    print(f"{name} done: {step}/{total} steps in {train_seconds:.0f}s", flush=True)


def run(args):
    load(args)
    chosen = args.only.split(",") if args.only else list(CONFIGS)
    Path(args.work).mkdir(parents=True, exist_ok=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    context = multiprocessing.get_context("fork")  # the children share SHARED; none touches CUDA before
    procs = {name: context.Process(target=train_one, args=(name, args)) for name in chosen}
    for proc in procs.values():
        proc.start()
    for name, proc in procs.items():
        proc.join()
        if proc.exitcode:
            print(f"{name} failed: exit {proc.exitcode}", flush=True)
    summary, arrays, rank = {}, {}, []
    for name in chosen:
        work = Path(args.work) / f"{name}.npz"
        if not work.exists():
            continue
        loaded = np.load(work)
        info = json.loads((Path(args.work) / f"{name}.json").read_text())
        info["figures"] = {}
        for key in loaded.files:
            arrays[f"{name}/{key}"] = loaded[key]
            if key.startswith("eval/"):
                packed = SHARED["data"]["eval"][key[5:]]
                pairs = [{"label": "paraphrase" if p[2] else "near-miss"} for p in packed]
                info["figures"][key[5:]] = gate_figures(pairs, loaded[key].tolist(), [p[4] for p in packed], 0.5)
        served = sum(info["figures"][k]["served"] for k in POOLED)
        kept = sum(info["figures"][k]["kept"] for k in POOLED)
        info["validation_pooled"] = {"served": served, "kept": kept}
        rank.append((kept - 2.5 * served, name))  # the exchange: 2.5 hits for one near miss
        summary[name] = info
        line = "  ".join(f"{k} {f['served']}/{f['raw_false']} {f['kept']}/{f['raw_hits']}" for k, f in info["figures"].items())
        print(f"{name}: {info['steps']}/{info['total']} steps, {info['train_seconds']}s; "
              f"pooled validation {served}/{kept}; {line}", flush=True)
    np.savez_compressed(out / "results.npz", **arrays)
    (out / "summary.json").write_text(json.dumps(summary))
    if rank:
        best = max(rank)[1]
        blob = (Path(args.work) / f"{best}.pt").read_bytes()
        piece = 15 * 1024 * 1024  # the files that come back from the GPU machine are at most 16 MiB each
        for index in range(0, len(blob), piece):
            (out / f"{best}.pt.{index // piece}").write_bytes(blob[index: index + piece])
        print(f"best on pooled validation: {best} (its float16 state in {out})", flush=True)


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    packing = commands.add_parser("pack")
    packing.add_argument("--base", required=True, help="the folder of model.safetensors and tokenizer.json")
    packing.add_argument("--bench", default="bench/data")
    packing.add_argument("--out", required=True)
    running = commands.add_parser("run")
    running.add_argument("--packed", required=True, help="the folder pack wrote")
    running.add_argument("--out", required=True)
    running.add_argument("--work", default="/tmp/verifier-ceiling")
    running.add_argument("--device", default="cuda")
    running.add_argument("--only", default="", help="NAME,NAME: these configurations of CONFIGS only")
    running.add_argument("--seconds", type=float, default=330, help="stop training a configuration after this long")
    running.add_argument("--steps", type=int, default=0, help="train at most this many steps (a smoke test)")
    running.add_argument("--limit", type=int, default=0, help="the first this many pairs of each set only (a smoke test)")
    args = parser.parse_args()
    (pack if args.command == "pack" else run)(args)


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()
