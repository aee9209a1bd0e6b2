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
 * folder needs the tokenizer files beside its pair-verifier.onnx, as scripts/train-pair-verifier.sh
 * writes them) it prints near misses served and paraphrase hits kept at several pairs of cuts,
 * then by set at the shipped cuts.
 *
 * The pairs of one small edit in a long question (training/verifier/data/swap/, BRIEF-swap.md: one
 * word or phrase changed, moved or misspelt, twinned paraphrase and near miss) are two groups of
 * their own, printed apart from the validation sets: no shipped model has trained on them. The
 * changed words' score (VERIFIER_CHANGED_WORDS_SCORE) was first chosen on the first four files of
 * each author (0.01), then on every group here (0.03), so no group is unseen for it any more.
 *
 * `--read` adds the unseen sets already measured once and read since (READ_SETS: R to MK), as
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
import { loadThesaurus } from '../src/cache/semantic/guard/thesaurus.ts';
import { loadWordnet } from '../src/cache/semantic/guard/wordnet.ts';
import { LocalEmbedder } from '../src/cache/semantic/local-embedder.ts';
import {
  changedWordsScore,
  DEFAULT_VERIFIER_DIR,
  LocalPairVerifier,
  sameWording,
  synonymWordsNeed,
  VERIFIER_CHANGED_WORDS_SCORE,
  VERIFIER_GUARD,
  VERIFIER_MIN_SCORE,
  VERIFIER_OVERRULE_SCORE,
  VERIFIER_WORDS_OVERRULE,
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
  /** The lower of the changed words' two scores (changedWords), when the overrule decides the pair or it is one word for its synonym. */
  words?: number;
  /** Where all it changes is one word for a listed synonym, what the two words read alone need (synonymWordsNeed, RULE86, RULE118). */
  synonymNeed?: number;
}

const AT = 0.8;
/**
 * The verifier's cuts: its score, the overrule's, what the changed words need when it overrules,
 * and the overrule's second way (VERIFIER_WORDS_OVERRULE: a lower score with the changed words
 * reading as the same), where a cut has one.
 */
type Cut = [min: number, overrule: number, words: number, second?: readonly [score: number, words: number]];
const SHIPPED_SECOND = [VERIFIER_WORDS_OVERRULE.score, VERIFIER_WORDS_OVERRULE.words] as const;
const SHIPPED: Cut = [
  VERIFIER_MIN_SCORE,
  VERIFIER_OVERRULE_SCORE,
  VERIFIER_CHANGED_WORDS_SCORE,
  SHIPPED_SECOND,
];
const CUTS: Cut[] = [
  [0.5, 0.95, 0],
  [0.5, 0.99, 0],
  [0.7, 0.97, 0],
  [0.7, 0.99, 0],
  [0.7, 0.99, 0.005],
  [0.7, 0.99, 0.01],
  [0.7, 0.99, 0.02],
  [0.7, 0.99, VERIFIER_CHANGED_WORDS_SCORE],
  [0.7, 0.99, 0.05],
  [0.7, 0.99, VERIFIER_CHANGED_WORDS_SCORE, [0.8, 0.8]],
  SHIPPED,
  [0.6, 0.99, VERIFIER_CHANGED_WORDS_SCORE, SHIPPED_SECOND],
  [0.7, 0.99, VERIFIER_CHANGED_WORDS_SCORE, SHIPPED_SECOND],
  [0.7, 0.99, VERIFIER_CHANGED_WORDS_SCORE, [0.8, 0.95]],
  [0.7, 0.99, VERIFIER_CHANGED_WORDS_SCORE, [0.9, 0.9]],
  [0.8, 0.99, VERIFIER_CHANGED_WORDS_SCORE, SHIPPED_SECOND],
  [0.9, 0.99, VERIFIER_CHANGED_WORDS_SCORE, SHIPPED_SECOND],
];
const cutName = ([min, overrule, words, second]: Cut) =>
  `${min}/${overrule}${words > 0 ? `/${words}` : ''}${second ? ` or ${second[0]}/${second[1]}` : ''}`;
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

/**
 * training/verifier/data/swap/: written for training, tried there and not shipped (bench/README.md),
 * in two groups: each author's first four files (VERIFIER_CHANGED_WORDS_SCORE was chosen on them)
 * and their last files.
 */
function swapSet(): Record<string, Pair[]> {
  const swap = join(BENCH_DIR, '../training/verifier/data/swap');
  const files = readdirSync(swap)
    .filter((name) => name.endsWith('.jsonl'))
    .sort();
  const last = new Set(files.filter((name) => name.endsWith('-part-05.jsonl')));
  const pairsOf = (names: string[]) => names.flatMap((file) => readPairs(join(swap, file)));
  return {
    'swap, first four files': pairsOf(files.filter((name) => !last.has(name))),
    'swap, last files': pairsOf([...last]),
  };
}

/** The unseen sets measured once (bench/data/reserved/README.md) and read since, by group. */
const READ_SETS: Record<string, string[]> = {
  'read R to Y': ['R', 'S', 'T', 'U', 'V', 'W', 'X', 'Y'],
  'read Z to AG': ['Z', 'AA', 'AB', 'AC', 'AD', 'AE', 'AF', 'AG'],
  'read AH to AO': ['AH', 'AI', 'AJ', 'AK', 'AL', 'AM', 'AN', 'AO'],
  'read AP to AY': ['AP', 'AQ', 'AR', 'AS', 'AT', 'AU', 'AV', 'AW', 'AX', 'AY'],
  'read AZ to BE': ['AZ', 'BA', 'BB', 'BC', 'BD', 'BE'],
  'read BF to BS': ['BF', 'BG', 'BH', 'BI', 'BJ', 'BK', 'BL', 'BM', 'BN', 'BO', 'BP', 'BQ', 'BR', 'BS'],
  'read BT to CI': [
    'BT',
    'BU',
    'BV',
    'BW',
    'BX',
    'BY',
    'BZ',
    'CA',
    'CB',
    'CC',
    'CD',
    'CE',
    'CF',
    'CG',
    'CH',
    'CI',
  ],
  'read CJ to CO': ['CJ', 'CK', 'CL', 'CM', 'CN', 'CO'],
  'read CP to CW': ['CP', 'CQ', 'CR', 'CS', 'CT', 'CU', 'CV', 'CW'],
  'read CX to DE': ['CX', 'CY', 'CZ', 'DA', 'DB', 'DC', 'DD', 'DE'],
  'read DF to DM': ['DF', 'DG', 'DH', 'DI', 'DJ', 'DK', 'DL', 'DM'],
  'read DN to DW': ['DN', 'DO', 'DP', 'DQ', 'DR', 'DS', 'DT', 'DU', 'DV', 'DW'],
  'read DX to EE': ['DX', 'DY', 'DZ', 'EA', 'EB', 'EC', 'ED', 'EE'],
  'read EF to EO': ['EF', 'EG', 'EH', 'EI', 'EJ', 'EK', 'EL', 'EM', 'EN', 'EO'],
  'read EP to EY': ['EP', 'EQ', 'ER', 'ES', 'ET', 'EU', 'EV', 'EW', 'EX', 'EY'],
  'read EZ to FI': ['EZ', 'FA', 'FB', 'FC', 'FD', 'FE', 'FF', 'FG', 'FH', 'FI'],
  'read FJ to FS': ['FJ', 'FK', 'FL', 'FM', 'FN', 'FO', 'FP', 'FQ', 'FR', 'FS'],
  'read FT to FW': ['FT', 'FU', 'FV', 'FW'],
  'read FX to GA': ['FX', 'FY', 'FZ', 'GA'],
  'read GB to GE': ['GB', 'GC', 'GD', 'GE'],
  'read GF to GI': ['GF', 'GG', 'GH', 'GI'],
  'read GJ to GM': ['GJ', 'GK', 'GL', 'GM'],
  'read GN to GQ': ['GN', 'GO', 'GP', 'GQ'],
  'read GR to GU': ['GR', 'GS', 'GT', 'GU'],
  'read GV to GY': ['GV', 'GW', 'GX', 'GY'],
  'read GZ to HC': ['GZ', 'HA', 'HB', 'HC'],
  'read HD to HG': ['HD', 'HE', 'HF', 'HG'],
  'read HH to HK': ['HH', 'HI', 'HJ', 'HK'],
  'read HL to HO': ['HL', 'HM', 'HN', 'HO'],
  'read HP to HS': ['HP', 'HQ', 'HR', 'HS'],
  'read HT to HW': ['HT', 'HU', 'HV', 'HW'],
  'read HX to IA': ['HX', 'HY', 'HZ', 'IA'],
  'read IB to IE': ['IB', 'IC', 'ID', 'IE'],
  'read IF to II': ['IF', 'IG', 'IH', 'II'],
  'read IJ to IM': ['IJ', 'IK', 'IL', 'IM'],
  'read IN to IQ': ['IN', 'IO', 'IP', 'IQ'],
  'read IR to IU': ['IR', 'IS', 'IT', 'IU'],
  'read IV to IW': ['IV', 'IW'],
  'read IX to IY': ['IX', 'IY'],
  'read IZ to JA': ['IZ', 'JA'],
  'read JB to JC': ['JB', 'JC'],
  'read JD to JE': ['JD', 'JE'],
  'read JF to JG': ['JF', 'JG'],
  'read JH to JI': ['JH', 'JI'],
  'read JJ to JK': ['JJ', 'JK'],
  'read JL to JM': ['JL', 'JM'],
  'read JN to JO': ['JN', 'JO'],
  'read JP to JQ': ['JP', 'JQ'],
  'read JR to JS': ['JR', 'JS'],
  'read JT to JU': ['JT', 'JU'],
  'read JV to JW': ['JV', 'JW'],
  'read JX to JY': ['JX', 'JY'],
  'read JZ to KA': ['JZ', 'KA'],
  'read KB to KC': ['KB', 'KC'],
  'read KD to KG': ['KD', 'KE', 'KF', 'KG'],
  'read KH to KK': ['KH', 'KI', 'KJ', 'KK'],
  'read KL to KM': ['KL', 'KM'],
  'read KN to KO': ['KN', 'KO'],
  'read KP to KQ': ['KP', 'KQ'],
  'read KS': ['KS'],
  'read KT to KW': ['KT', 'KU', 'KV', 'KW'],
  'read KX to LA': ['KX', 'KY', 'KZ', 'LA'],
  'read LB to LG': ['LB', 'LC', 'LD', 'LE', 'LF', 'LG'],
  'read LH to LI': ['LH', 'LI'],
  'read LJ to LO': ['LJ', 'LK', 'LL', 'LM', 'LN', 'LO'],
  'read LP to LU': ['LP', 'LQ', 'LR', 'LS', 'LT', 'LU'],
  'read LV to MA': ['LV', 'LW', 'LX', 'LY', 'LZ', 'MA'],
  'read MB to MG': ['MB', 'MC', 'MD', 'ME', 'MF', 'MG'],
  'read MH to MI': ['MH', 'MI'],
  'read MJ to MK': ['MJ', 'MK'],
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

/**
 * The gateway's lean decision (pair-verifier.ts, semantic-cache.ts) at the given cuts: the rules it
 * asks first, then the same words in the same order need no model ("20" / "-20 degrees" are the
 * same words but not the same numbers, RULE66), then the verifier at the cuts, then one word for
 * its synonym at what its list has it need, whatever the cuts (RULE86, RULE118).
 */
function serves(pair: Decided, cut: Cut): boolean {
  if (pair.refusedBy.some((reason) => VERIFIER_GUARD.asked.has(reason as RefusalReason))) return false;
  if (pair.same || verifierServes(pair, cut)) return true;
  // One word for its listed synonym, the two words read alone as the same (RULE86, RULE118).
  return pair.synonymNeed !== undefined && (pair.words ?? 0) >= pair.synonymNeed;
}

/** The verifier's own decision at the cuts, the overrule's included. */
function verifierServes(pair: Decided, [min, overrule, words, second]: Cut): boolean {
  const overruled = pair.refusedBy.some((reason) => VERIFIER_GUARD.overrulable.has(reason as RefusalReason));
  if (!overruled) return pair.score >= min;
  const read = pair.words ?? 0;
  if (pair.score >= overrule) return read >= words;
  return second !== undefined && pair.score >= second[0] && read >= second[1];
}

function counts(pairs: Decided[], cut: Cut) {
  const above = pairs.filter((pair) => pair.similarity >= AT);
  const nearMisses = above.filter((pair) => pair.label === 'near-miss');
  const paraphrases = above.filter((pair) => pair.label === 'paraphrase');
  const served = nearMisses.filter((pair) => serves(pair, cut)).length;
  const kept = paraphrases.filter((pair) => serves(pair, cut)).length;
  return `${served}/${nearMisses.length} served, ${kept}/${paraphrases.length} kept`;
}

async function main(): Promise<void> {
  const validation = validationSets();
  const sets = { ...validation, ...swapSet(), ...(process.argv.includes('--read') ? readSets() : {}) };
  const dirs = (process.env.VERIFIER_DIRS ?? '').split(',').map((dir) => dir.trim());
  for (const model of dirs) {
    // Said before the embedding model loads: a verifier that fails later aborts the process unexplained.
    const missing = new LocalPairVerifier(model ? { modelDir: model } : {}).missingFiles();
    if (missing.length > 0) throw new Error(`${model || DEFAULT_VERIFIER_DIR} lacks ${missing.join(', ')}`);
  }
  await Promise.all([loadEnglishWords(), loadWordnet(), loadThesaurus()]);
  const embedder = await LocalEmbedder.start({ modelDir: MODEL_DIR, threads: 1, quantized: true });
  const decided: Decided[] = [];
  try {
    for (const model of dirs) {
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
            const refusedBy = HIT_GUARD_RULES.filter((rule) => rule.refuses(guardPair)).map(
              (rule) => rule.reason,
            );
            const overruled = refusedBy.some((reason) => VERIFIER_GUARD.overrulable.has(reason));
            const synonymNeed = synonymWordsNeed(pair.a, aligned);
            const words =
              overruled || synonymNeed !== undefined
                ? await changedWordsScore(verifier, pair.a, aligned)
                : undefined;
            decided.push({
              model: model || 'shipped',
              set,
              label: pair.label,
              a: pair.a,
              b: pair.b,
              similarity: similarity(asked, quantise(cached)),
              same: sameWording(pair.a, aligned),
              refusedBy,
              score,
              ...(words === undefined ? {} : { words }),
              ...(synonymNeed === undefined ? {} : { synonymNeed }),
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
    `\nValidation sets at ${AT}: near misses served and paraphrase hits kept, by the verifier's cuts (min/overrule/changed words, or a second overrule)\n${table(
      ['model', ...CUTS.map(cutName)],
      models.map((model) => {
        const mine = decided.filter((pair) => pair.model === model && pair.set in validation);
        return [model, ...CUTS.map((cut) => counts(mine, cut))];
      }),
    )}\n`,
  );
  for (const group of Object.keys(sets).filter((set) => !(set in validation))) {
    process.stdout.write(
      `\n${group} at ${AT}, by the verifier's cuts (min/overrule/changed words, or a second overrule)\n${table(
        ['model', ...CUTS.map(cutName)],
        models.map((model) => {
          const mine = decided.filter((pair) => pair.model === model && pair.set === group);
          return [model, ...CUTS.map((cut) => counts(mine, cut))];
        }),
      )}\n`,
    );
  }
  const shipped: [string, Cut][] = [
    [cutName(SHIPPED), SHIPPED],
    [
      `${cutName([VERIFIER_MIN_SCORE, VERIFIER_OVERRULE_SCORE, VERIFIER_CHANGED_WORDS_SCORE])}, no second overrule`,
      [VERIFIER_MIN_SCORE, VERIFIER_OVERRULE_SCORE, VERIFIER_CHANGED_WORDS_SCORE],
    ],
    [
      `${VERIFIER_MIN_SCORE}/${VERIFIER_OVERRULE_SCORE}, changed words not read`,
      [VERIFIER_MIN_SCORE, VERIFIER_OVERRULE_SCORE, 0],
    ],
  ];
  process.stdout.write(
    `\nBy set, at the shipped cuts (min/overrule/changed words, or the second overrule's score/changed words)\n${table(
      ['model', 'cuts', ...Object.keys(sets)],
      models.flatMap((model) =>
        shipped.map(([name, cut]) => [
          model,
          name,
          ...Object.keys(sets).map((set) =>
            counts(
              decided.filter((pair) => pair.model === model && pair.set === set),
              cut,
            ),
          ),
        ]),
      ),
    )}\n`,
  );
  const results = join(BENCH_DIR, 'results');
  mkdirSync(results, { recursive: true });
  const file = join(results, `verifier-cuts-${new Date().toISOString().replaceAll(':', '-')}.json`);
  writeFileSync(file, JSON.stringify(decided));
  process.stdout.write(`\nresults: ${file}\n`);
}

await main();
