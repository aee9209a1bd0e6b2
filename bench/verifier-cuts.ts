/**
 * The pair verifier's cuts on the validation sets (`npm run bench:verifier-cuts`): how a model is
 * chosen, and its two scores (VERIFIER_MIN_SCORE, VERIFIER_OVERRULE_SCORE), before any unseen set
 * is read. The validation sets are the ones training/verifier/dataset.py never trains on: unseen-B,
 * holdout-10 and 11, and each written author's last file (training/verifier/data/written/).
 *
 * Each pair is decided as the gateway decides it at the default threshold 0.8: the asked question
 * aligned to the cached one's wording (wording.ts), the lean rules asked (VERIFIER_GUARD), and the
 * verifier reading the pair without the leading clauses both share. For each model folder in
 * VERIFIER_DIRS (comma-separated; an empty entry is the shipped model, models/pair-verifier/; a
 * folder needs the tokenizer files beside its pair-verifier.onnx) it prints near misses served and
 * paraphrase hits kept at several pairs of cuts, then by set at the shipped cuts.
 *
 * The pairs of one small edit in a long question (training/verifier/data/swap/, BRIEF-swap.md: one
 * word or phrase changed, moved or misspelt, twinned paraphrase and near miss) are a group of their
 * own, printed apart from the validation sets: no shipped model has trained on them.
 *
 * `--read` adds the unseen sets already measured once and read since (READ_SETS: R to AG), as two
 * more groups beside the validation sets: a second opinion on a change chosen on validation, from
 * sets nobody tunes the model on. A set joins READ_SETS only after its one measurement.
 *
 * Needs the embedding model (scripts/fetch-semcache-model.sh; GATEWAY_SEMCACHE_MODEL_DIR). Per-pair
 * scores go to bench/results/verifier-cuts-<stamp>.json. About 1.5 minutes a model on one core, 3.5
 * minutes with `--read`.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { quantise, similarity } from '../src/cache/semantic/embedder.ts';
import { loadEnglishWords } from '../src/cache/semantic/guard/english-words.ts';
import { GuardPair, type RefusalReason } from '../src/cache/semantic/guard/guard-rule.ts';
import { HIT_GUARD_RULES } from '../src/cache/semantic/guard/hit-guard.ts';
import { LocalEmbedder } from '../src/cache/semantic/local-embedder.ts';
import {
  LocalPairVerifier,
  sameWording,
  VERIFIER_GUARD,
  VERIFIER_MIN_SCORE,
  VERIFIER_OVERRULE_SCORE,
  withoutSharedContext,
} from '../src/cache/semantic/pair-verifier.ts';
import { alignWording } from '../src/cache/semantic/wording.ts';
import { BENCH_DIR, table } from './harness.ts';

interface Pair {
  a: string;
  b: string;
  label: 'paraphrase' | 'near-miss';
}

interface Decided {
  model: string;
  set: string;
  label: Pair['label'];
  a: string;
  b: string;
  similarity: number;
  same: boolean;
  refusedBy: string[];
  score: number;
}

const AT = 0.8;
const CUTS: [min: number, overrule: number][] = [
  [0.5, 0.95],
  [0.5, 0.99],
  [0.7, 0.97],
  [0.7, 0.99],
  [0.8, 0.99],
  [0.9, 0.99],
];
const MODEL_DIR =
  process.env.GATEWAY_SEMCACHE_MODEL_DIR ||
  join(homedir(), '.cache/gateway-semcache/all-minilm-l6-v2-int8-v1');

const readPairs = (file: string): Pair[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Pair);

/** The validation sets, as dataset.py names them. */
function validationSets(): Record<string, Pair[]> {
  const data = join(BENCH_DIR, 'data');
  const written = join(BENCH_DIR, '../training/verifier/data/written');
  const last = new Map<string, string>();
  for (const file of readdirSync(written)
    .filter((name) => /-part-\d+\.jsonl$/.test(name))
    .sort())
    last.set(file.split('-part-')[0] as string, file);
  return {
    'unseen-B': readPairs(join(data, 'semantic-pairs-unseen-B.jsonl')),
    'holdout-10+11': [10, 11].flatMap((n) => readPairs(join(data, `semantic-pairs-holdout-${n}.jsonl`))),
    'written-last': [...last.values()].flatMap((file) => readPairs(join(written, file))),
  };
}

/** training/verifier/data/swap/: written for training, tried there and not shipped (bench/README.md). */
function swapSet(): Record<string, Pair[]> {
  const swap = join(BENCH_DIR, '../training/verifier/data/swap');
  return {
    'swap (one small edit)': readdirSync(swap)
      .filter((name) => name.endsWith('.jsonl'))
      .sort()
      .flatMap((file) => readPairs(join(swap, file))),
  };
}

/** The unseen sets measured once (bench/data/reserved/README.md) and read since, by group. */
const READ_SETS: Record<string, string[]> = {
  'read R to Y': ['R', 'S', 'T', 'U', 'V', 'W', 'X', 'Y'],
  'read Z to AG': ['Z', 'AA', 'AB', 'AC', 'AD', 'AE', 'AF', 'AG'],
};

function readSets(): Record<string, Pair[]> {
  return Object.fromEntries(
    Object.entries(READ_SETS).map(([group, names]) => [
      group,
      names.flatMap((name) =>
        readPairs(join(BENCH_DIR, 'data/reserved', `semantic-pairs-unseen-${name}.jsonl`)),
      ),
    ]),
  );
}

/** The gateway's lean decision (pair-verifier.ts) at the given cuts. */
function serves(pair: Decided, min: number, overrule: number): boolean {
  if (pair.refusedBy.some((reason) => VERIFIER_GUARD.asked.has(reason as RefusalReason))) return false;
  const overruled = pair.refusedBy.some((reason) => VERIFIER_GUARD.overrulable.has(reason as RefusalReason));
  return pair.same || pair.score >= (overruled ? overrule : min);
}

function counts(pairs: Decided[], min: number, overrule: number) {
  const above = pairs.filter((pair) => pair.similarity >= AT);
  const nearMisses = above.filter((pair) => pair.label === 'near-miss');
  const paraphrases = above.filter((pair) => pair.label === 'paraphrase');
  const served = nearMisses.filter((pair) => serves(pair, min, overrule)).length;
  const kept = paraphrases.filter((pair) => serves(pair, min, overrule)).length;
  return `${served}/${nearMisses.length} served, ${kept}/${paraphrases.length} kept`;
}

async function main(): Promise<void> {
  const validation = validationSets();
  const sets = { ...validation, ...swapSet(), ...(process.argv.includes('--read') ? readSets() : {}) };
  await loadEnglishWords();
  const embedder = await LocalEmbedder.start({ modelDir: MODEL_DIR, threads: 1, quantized: true });
  const decided: Decided[] = [];
  try {
    for (const model of (process.env.VERIFIER_DIRS ?? '').split(',').map((dir) => dir.trim())) {
      const verifier = new LocalPairVerifier({ threads: 1, ...(model ? { modelDir: model } : {}) });
      try {
        for (const [set, pairs] of Object.entries(sets)) {
          for (const pair of pairs) {
            const aligned = alignWording(pair.a, pair.b);
            const [cached, asked, score] = await Promise.all([
              embedder.embed(pair.a),
              embedder.embed(pair.b),
              verifier.score(...withoutSharedContext(pair.a, aligned)),
            ]);
            const guardPair = new GuardPair(aligned, pair.a);
            decided.push({
              model: model || 'shipped',
              set,
              label: pair.label,
              a: pair.a,
              b: pair.b,
              similarity: similarity(asked, quantise(cached)),
              same: sameWording(pair.a, aligned),
              refusedBy: HIT_GUARD_RULES.filter((rule) => rule.refuses(guardPair)).map((rule) => rule.reason),
              score,
            });
          }
        }
      } finally {
        await verifier.close();
      }
    }
  } finally {
    await embedder.close();
  }
  const models = [...new Set(decided.map((pair) => pair.model))];
  process.stdout.write(
    `\nValidation sets at ${AT}: near misses served and paraphrase hits kept, by the verifier's cuts (min/overrule)\n${table(
      ['model', ...CUTS.map(([min, overrule]) => `${min}/${overrule}`)],
      models.map((model) => {
        const mine = decided.filter((pair) => pair.model === model && pair.set in validation);
        return [model, ...CUTS.map(([min, overrule]) => counts(mine, min, overrule))];
      }),
    )}\n`,
  );
  for (const group of Object.keys(sets).filter((set) => !(set in validation))) {
    process.stdout.write(
      `\n${group} at ${AT}, by the verifier's cuts (min/overrule)\n${table(
        ['model', ...CUTS.map(([min, overrule]) => `${min}/${overrule}`)],
        models.map((model) => {
          const mine = decided.filter((pair) => pair.model === model && pair.set === group);
          return [model, ...CUTS.map(([min, overrule]) => counts(mine, min, overrule))];
        }),
      )}\n`,
    );
  }
  process.stdout.write(
    `\nBy set, at the shipped cuts (${VERIFIER_MIN_SCORE}/${VERIFIER_OVERRULE_SCORE})\n${table(
      ['model', ...Object.keys(sets)],
      models.map((model) => [
        model,
        ...Object.keys(sets).map((set) =>
          counts(
            decided.filter((pair) => pair.model === model && pair.set === set),
            VERIFIER_MIN_SCORE,
            VERIFIER_OVERRULE_SCORE,
          ),
        ),
      ]),
    )}\n`,
  );
  const results = join(BENCH_DIR, 'results');
  mkdirSync(results, { recursive: true });
  const file = join(results, `verifier-cuts-${new Date().toISOString().replaceAll(':', '-')}.json`);
  writeFileSync(file, JSON.stringify(decided));
  process.stdout.write(`\nresults: ${file}\n`);
}

await main();
