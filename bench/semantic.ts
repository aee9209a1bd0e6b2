/**
 * Semantic-cache benchmark (`npm run bench:semantic`), one run that stops by itself, loopback only.
 * Needs the model (scripts/fetch-semcache-model.sh; GATEWAY_SEMCACHE_MODEL_DIR) and, for the Redis
 * part, redis-server on PATH.
 *
 * 1. Accuracy on the labelled pair sets under bench/data: `semantic-pairs.jsonl` (the set the hit
 *    guard was built against) and nine held-out sets written apart from the code
 *    (`semantic-pairs-holdout*.jsonl`; bench/README.md says which ones later revisions of the guard
 *    saw). Each pair's first question is cached, the second asked: the
 *    similarity is the one a lookup computes (the asked question's float vector against the cached
 *    one's int8 record). At thresholds 0.7/0.8/0.9, with the guard and without: the hit rate on
 *    paraphrases, the false-hit rate on near misses, and how many of the paraphrase hits the
 *    guard keeps. `--details` lists the pairs the guard refuses or lets through wrongly at 0.8.
 * 2. Embedding time through the gateway's embedder (LocalEmbedder: a worker thread, ONNX Runtime
 *    with one intra-op thread, i.e. one core), for a 30-word message asked one at a time: p50/p99.
 *    The model file is the gateway's: model-int8-dynamic.onnx when the folder holds it, model.onnx
 *    with GATEWAY_SEMCACHE_QUANTIZED=off (the accuracy figures are that file's too).
 *    Then 16 at a time (batched): texts per second.
 * 3. Lookup time (SemanticCache.lookup with the vector given: the bucket's key, its newest
 *    candidates read, scored, the best kept) at bucket sizes 10, 1,000 and 10,000 on the memory
 *    store and on Redis: p50/p99 with the depth valve as the gateway sets it up (ceiling 2,000, scan
 *    budget 5 ms), with the whole bucket scanned, and with the valve while another store (on
 *    Redis another connection: another pod) adds a candidate before each lookup, the bucket kept at
 *    its size. On Redis a lookup reads only what its process's copy lacks (semantic-mirror.ts):
 *    nothing in the first two modes once warm, the one new record (or, past a trim, the tail) in
 *    the third.
 *
 * Options (flags or env): --quick (fewer samples), --details, BENCH_EMBED_SAMPLES (default 1000),
 * BENCH_LOOKUP_SAMPLES (default 500). Results also in bench/results/semantic-<stamp>.json.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { createCacheMetrics } from '../src/cache/cache-metrics.ts';
import { ResponseCache } from '../src/cache/response-cache.ts';
import { CacheScopeMirror } from '../src/cache/scope-mirror.ts';
import { DepthValve } from '../src/cache/semantic/depth-valve.ts';
import { type Embedder, quantise, similarity } from '../src/cache/semantic/embedder.ts';
import { loadEnglishWords } from '../src/cache/semantic/guard/english-words.ts';
import { GuardPair, type RefusalReason } from '../src/cache/semantic/guard/guard-rule.ts';
import { checkHitGuard, HIT_GUARD_RULES } from '../src/cache/semantic/guard/hit-guard.ts';
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
  VERIFIER_SYNONYM_WORDS,
  VERIFIER_WORDS_OVERRULE,
  withoutSharedContext,
} from '../src/cache/semantic/pair-verifier.ts';
import { SemanticCache } from '../src/cache/semantic/semantic-cache.ts';
import { createSemanticMetrics } from '../src/cache/semantic/semantic-metrics.ts';
import { alignWording } from '../src/cache/semantic/wording.ts';
import { createLogger } from '../src/observability/logger.ts';
import { MemoryRuntimeStore } from '../src/stores/memory-runtime-store.ts';
import { RedisRuntimeStore } from '../src/stores/redis-runtime-store.ts';
import type { RuntimeStore } from '../src/stores/types.ts';
import { BENCH_DIR, f3, machineInfo, startRedis, stopAll, table } from './harness.ts';
import { summarise } from './load.ts';

const args = new Set(process.argv.slice(2));
const quick = args.has('--quick');
const details = args.has('--details');
const EMBED_SAMPLES = Number(process.env.BENCH_EMBED_SAMPLES ?? (quick ? 200 : 1000));
const LOOKUP_SAMPLES = Number(process.env.BENCH_LOOKUP_SAMPLES ?? (quick ? 100 : 500));
const THRESHOLDS = [0.7, 0.8, 0.9];
const BUCKET_SIZES = [10, 1_000, 10_000];
/** The gateway's defaults (GATEWAY_SEMCACHE_MAX_DEPTH, GATEWAY_SEMCACHE_SCAN_BUDGET_MS). */
const VALVE_DEPTH = 2_000;
const SCAN_BUDGET_MS = 5;
const MODEL_DIR =
  process.env.GATEWAY_SEMCACHE_MODEL_DIR ||
  join(homedir(), '.cache/gateway-semcache/all-minilm-l6-v2-int8-v1');

/** 30 words. */
const THIRTY_WORDS =
  'We are planning a two week trip to Japan next spring with our children and would like to know which cities to visit and how to travel between them cheaply';

interface Pair {
  id: string;
  a: string;
  b: string;
  label: 'paraphrase' | 'near-miss';
  category: string;
  /** The near miss's kind, where the set names it (else its category counts). */
  kind?: string;
}

interface Scored extends Pair {
  similarity: number;
  guardOk: boolean;
  guardReason?: string;
  /** The rules that refuse the pair, each on its own (the verdict is the first). */
  refusedBy: string[];
  /** The pair verifier's score (cached question a, asked question b). */
  verifierScore: number;
  /** The asked question reworded toward the cached one (wording.ts), as the gateway verifies it. */
  aligned: string;
  /** The rules that refuse the aligned pair, and the verifier's score for it. */
  alignedRefusedBy: string[];
  alignedScore: number;
  /** The verifier's score for the aligned pair without the leading clauses both share (withoutSharedContext). */
  contextScore: number;
  /**
   * When a rule the verifier overrules refuses the aligned pair, or it is one word for its synonym:
   * the lower of the changed words' two scores (changedWords).
   */
  wordsScore?: number;
  /**
   * Where all the aligned pair changes is one word for a listed synonym, what the two words read
   * alone need (synonymWordsNeed, RULE86, RULE118).
   */
  synonymNeed?: number;
}

function readPairs(file: string): Pair[] {
  return readFileSync(join(BENCH_DIR, 'data', file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Pair);
}

async function scorePairs(embedder: Embedder, verifier: LocalPairVerifier, pairs: Pair[]): Promise<Scored[]> {
  return Promise.all(
    pairs.map(async (pair) => {
      const aligned = alignWording(pair.a, pair.b);
      const withoutContext = withoutSharedContext(pair.a, aligned);
      const [cached, asked, verifierScore, alignedScore, contextScore] = await Promise.all([
        embedder.embed(pair.a),
        embedder.embed(pair.b),
        verifier.score(pair.a, pair.b),
        aligned === pair.b ? undefined : verifier.score(pair.a, aligned),
        withoutContext[0] === pair.a ? undefined : verifier.score(...withoutContext),
      ]);
      const verdict = checkHitGuard(pair.b, pair.a);
      const guardPair = new GuardPair(pair.b, pair.a);
      const refusing = (question: string) => {
        const asked = question === pair.b ? guardPair : new GuardPair(question, pair.a);
        return HIT_GUARD_RULES.filter((rule) => rule.refuses(asked)).map((rule) => rule.reason);
      };
      const alignedRefusedBy = refusing(aligned);
      const synonymNeed = synonymWordsNeed(pair.a, aligned);
      const wordsScore =
        synonymNeed !== undefined ||
        alignedRefusedBy.some((reason) => VERIFIER_GUARD.overrulable.has(reason as RefusalReason))
          ? await changedWordsScore(verifier, pair.a, aligned)
          : undefined;
      return {
        ...pair,
        similarity: similarity(asked, quantise(cached)),
        guardOk: verdict.ok,
        ...(verdict.ok ? {} : { guardReason: verdict.reason }),
        refusedBy: refusing(pair.b),
        verifierScore,
        aligned,
        alignedRefusedBy,
        alignedScore: alignedScore ?? verifierScore,
        contextScore: contextScore ?? alignedScore ?? verifierScore,
        ...(wordsScore === undefined ? {} : { wordsScore }),
        ...(synonymNeed === undefined ? {} : { synonymNeed }),
      };
    }),
  );
}

/** The verifier's answer as the gateway takes it: the same words in the same order need no model. */
const verified = (pair: Scored, needs: number) => sameWording(pair.a, pair.b) || pair.verifierScore >= needs;

/**
 * Lean mode (VERIFIER_GUARD): the rules it keeps refuse, the one it overrules asks for a higher
 * score and, given `words` (the lower of the changed words' two scores), for the changed words read
 * alone to reach VERIFIER_CHANGED_WORDS_SCORE, or, at the second way's lower score, its words.
 */
function leanServes(
  refusedBy: string[],
  score: number,
  same: boolean,
  words?: number,
  [min, overrule, wordsNeeded, second]: Cuts = GATEWAY_CUTS,
  asked: ReadonlySet<RefusalReason> = VERIFIER_GUARD.asked,
): boolean {
  // The rules it asks first, as the gateway does; then the same words need no model (RULE66: "20"
  // / "-20 degrees" are the same words, not the same numbers).
  if (refusedBy.some((reason) => asked.has(reason as RefusalReason))) return false;
  if (same) return true;
  const overruled = refusedBy.some((reason) => VERIFIER_GUARD.overrulable.has(reason as RefusalReason));
  if (!overruled) return score >= min;
  if (score >= overrule) return words === undefined || words >= wordsNeeded;
  return second !== undefined && words !== undefined && score >= second[0] && words >= second[1];
}

/**
 * The verifier's cuts: its score, the overrule's, what the changed words need where it overrules,
 * and the overrule's second way where there is one (a lower score with the changed words reading
 * as the same, VERIFIER_WORDS_OVERRULE).
 */
type Cuts = [min: number, overrule: number, words: number, second?: readonly [score: number, words: number]];
const GATEWAY_CUTS: Cuts = [
  VERIFIER_MIN_SCORE,
  VERIFIER_OVERRULE_SCORE,
  VERIFIER_CHANGED_WORDS_SCORE,
  [VERIFIER_WORDS_OVERRULE.score, VERIFIER_WORDS_OVERRULE.words],
];
/** The rules lean mode asked before identifiers and narrowing joined them (bench/README.md). */
const ASKED_BEFORE: ReadonlySet<RefusalReason> = new Set<RefusalReason>([
  'negation',
  'opposite',
  'swapped',
  'direction',
  'changed-number',
]);

/**
 * The default's decision, as semantic-cache.ts runs it: the asked question aligned to the cached
 * one's wording first, the verifier reading the pair without the leading clauses both share, and,
 * where it overrules the substitution rule, the changed words alone, and where the verifier does not
 * serve one word for its synonym, the two words alone (RULE86, at what RULE118 has them need); at
 * other cuts or asked rules, or without that last step or with every synonym at
 * VERIFIER_SYNONYM_WORDS (the default before RULE118), for the rows below it.
 */
const defaultServes = (
  pair: Scored,
  cuts: Cuts = GATEWAY_CUTS,
  asked = VERIFIER_GUARD.asked,
  synonyms: Synonyms = 'as listed',
) =>
  leanServes(
    pair.alignedRefusedBy,
    pair.contextScore,
    sameWording(pair.a, pair.aligned),
    pair.wordsScore ?? 0,
    cuts,
    asked,
  ) ||
  (synonyms !== 'none' &&
    pair.synonymNeed !== undefined &&
    !pair.alignedRefusedBy.some((reason) => asked.has(reason as RefusalReason)) &&
    (pair.wordsScore ?? 0) >= (synonyms === 'one cut' ? VERIFIER_SYNONYM_WORDS : pair.synonymNeed));

/**
 * What one word for its listed synonym needs read alone: what its list has it need (RULE118), one
 * cut for both lists (VERIFIER_SYNONYM_WORDS, before it), or the step left out (before RULE86).
 */
type Synonyms = 'as listed' | 'one cut' | 'none';

/**
 * The default's decision varied, a row each: with every listed synonym's words at 0.8 (the default
 * before RULE118), without one word for its synonym (the default before RULE86), without the overrule's second way (the default before
 * it, bench/README.md "A second overrule, and unseen-AT and AU"), and, without it too, the changed
 * words at 0.01 (the cut before 0.03), the lower overrule, not shipped (bench/README.md, "The lower
 * overrule, and unseen-AJ and AK"), and the rules lean mode asked before.
 */
const BEFORE_SECOND: Cuts = [VERIFIER_MIN_SCORE, VERIFIER_OVERRULE_SCORE, VERIFIER_CHANGED_WORDS_SCORE];
const DEFAULT_VARIANTS: {
  name: string;
  cuts?: Cuts;
  asked?: ReadonlySet<RefusalReason>;
  synonyms?: Synonyms;
}[] = [
  { name: "the default's decision with every synonym's words at 0.8 (before RULE118)", synonyms: 'one cut' },
  { name: "the default's decision without one word for its synonym (RULE86)", synonyms: 'none' },
  { name: "the default's decision without the second overrule (0.8 / 0.9)", cuts: BEFORE_SECOND },
  { name: "the default's decision at 0.7 / 0.99 / 0.01, no second overrule", cuts: [0.7, 0.99, 0.01] },
  { name: "the default's decision at 0.7 / 0.8 / 0.05", cuts: [0.7, 0.8, 0.05] },
  {
    name: "the default's decision without identifiers and narrowing asked, no second overrule",
    cuts: BEFORE_SECOND,
    asked: ASKED_BEFORE,
  },
];

/**
 * What a hit at 0.8 needs besides the similarity, compared: the guard's rules alone, the verifier
 * alone, the verifier with the number and quote rules only, the verifier with every rule
 * (GATEWAY_SEMCACHE_VERIFIER_RULES=all), and lean mode (the gateway's default, VERIFIER_GUARD: the
 * rules it keeps refuse, the substitution rule asks for the verifier's higher score instead).
 */
const GATEWAY_DECIDER = 'verifier, lean rules, aligned, shared context dropped, changed words read (default)';
const DECIDERS: { name: string; serves: (pair: Scored) => boolean }[] = [
  { name: 'rules (all)', serves: (pair) => pair.refusedBy.length === 0 },
  { name: 'verifier', serves: (pair) => verified(pair, VERIFIER_MIN_SCORE) },
  {
    name: 'verifier + numbers, quoted',
    serves: (pair) =>
      verified(pair, VERIFIER_MIN_SCORE) &&
      !pair.refusedBy.some((reason) => reason === 'numbers' || reason === 'quoted'),
  },
  {
    name: 'verifier + all rules',
    serves: (pair) => verified(pair, VERIFIER_MIN_SCORE) && pair.refusedBy.length === 0,
  },
  {
    name: 'verifier, lean rules, as written',
    serves: (pair) => leanServes(pair.refusedBy, pair.verifierScore, sameWording(pair.a, pair.b)),
  },
  {
    name: 'verifier, lean rules, aligned wording',
    serves: (pair) => leanServes(pair.alignedRefusedBy, pair.alignedScore, sameWording(pair.a, pair.aligned)),
  },
  {
    name: 'verifier, lean rules, aligned, shared context dropped',
    serves: (pair) => leanServes(pair.alignedRefusedBy, pair.contextScore, sameWording(pair.a, pair.aligned)),
  },
  { name: GATEWAY_DECIDER, serves: (pair) => defaultServes(pair) },
  ...DEFAULT_VARIANTS.map(({ name, cuts, asked, synonyms }) => ({
    name,
    serves: (pair: Scored) => defaultServes(pair, cuts, asked, synonyms),
  })),
];

/** At 0.8: near misses served and paraphrase hits kept, per decider, overall and by kind. */
function verifierAccuracy(set: string, scored: Scored[]) {
  const at = 0.8;
  const rows = [];
  const kindOf = (pair: Scored) =>
    pair.label === 'paraphrase' ? 'paraphrase' : (pair.kind ?? pair.category);
  for (const decider of DECIDERS) {
    const above = scored.filter((pair) => pair.similarity >= at);
    const paraphrases = scored.filter((pair) => pair.label === 'paraphrase');
    const nearMisses = scored.filter((pair) => pair.label === 'near-miss');
    const rawHits = above.filter((pair) => pair.label === 'paraphrase');
    const kept = rawHits.filter(decider.serves).length;
    const rawFalse = above.filter((pair) => pair.label === 'near-miss');
    const served = rawFalse.filter(decider.serves).length;
    const byKind: Record<string, { pairs: number; above: number; served: number }> = {};
    for (const pair of scored) {
      const kind = kindOf(pair);
      const entry = byKind[kind] ?? { pairs: 0, above: 0, served: 0 };
      byKind[kind] = entry;
      entry.pairs += 1;
      if (pair.similarity >= at) {
        entry.above += 1;
        if (decider.serves(pair)) entry.served += 1;
      }
    }
    rows.push({
      set,
      decider: decider.name,
      paraphrases: paraphrases.length,
      nearMisses: nearMisses.length,
      rawHits: rawHits.length,
      kept,
      rawFalse: rawFalse.length,
      served,
      byKind,
    });
  }
  if (details) {
    const gateway = DECIDERS.find((decider) => decider.name === GATEWAY_DECIDER) as (typeof DECIDERS)[number];
    for (const pair of scored.filter((each) => each.similarity >= at)) {
      const wrong = pair.label === 'paraphrase' ? !gateway.serves(pair) : gateway.serves(pair);
      if (wrong)
        process.stdout.write(
          `  ${set} ${pair.label === 'paraphrase' ? 'refused' : 'SERVED '} ${pair.id} sim ${pair.similarity.toFixed(3)} verifier ${pair.contextScore.toFixed(3)} (whole pair ${pair.alignedScore.toFixed(3)}) [${pair.alignedRefusedBy.join(',')}] ${pair.a} | ${pair.aligned === pair.b ? pair.b : `${pair.b} (read as: ${pair.aligned})`}\n`,
        );
    }
  }
  return rows;
}

/** The verifier as the gateway runs it, one pair at a time: two 30-word questions. */
async function verifyTimes(verifier: LocalPairVerifier) {
  const other = THIRTY_WORDS.replace('spring', 'autumn').replace('children', 'parents');
  for (let index = 0; index < 50; index += 1) await verifier.score(`${THIRTY_WORDS} ${index}`, other);
  const samples = new Float64Array(EMBED_SAMPLES);
  for (let index = 0; index < EMBED_SAMPLES; index += 1) {
    const cached = THIRTY_WORDS.replace('two', String(index));
    const started = performance.now();
    await verifier.score(cached, other);
    samples[index] = performance.now() - started;
  }
  return summarise(samples);
}

/**
 * Reading the changed words alone, in both orders (changedWords): what a lookup adds when the
 * verifier overrules the substitution rule. The 30-word question and its copy with one word
 * changed ("spring" / "autumn", another word on each call).
 */
async function changedWordsTimes(verifier: LocalPairVerifier) {
  const seasons = ['autumn', 'winter', 'summer', 'april', 'june'];
  const samples = new Float64Array(EMBED_SAMPLES);
  for (let index = 0; index < EMBED_SAMPLES; index += 1) {
    const other = THIRTY_WORDS.replace('spring', seasons[index % seasons.length] as string);
    const started = performance.now();
    await changedWordsScore(verifier, THIRTY_WORDS, other);
    samples[index] = performance.now() - started;
  }
  return summarise(samples);
}

const percent = (part: number, whole: number) =>
  whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)}%`;

function accuracy(set: string, scored: Scored[]) {
  const paraphrases = scored.filter((pair) => pair.label === 'paraphrase');
  const nearMisses = scored.filter((pair) => pair.label === 'near-miss');
  const rows = THRESHOLDS.map((threshold) => {
    const above = (pair: Scored) => pair.similarity >= threshold;
    const rawHits = paraphrases.filter(above).length;
    const guardedHits = paraphrases.filter((pair) => above(pair) && pair.guardOk).length;
    const rawFalse = nearMisses.filter(above).length;
    const guardedFalse = nearMisses.filter((pair) => above(pair) && pair.guardOk).length;
    return {
      set,
      threshold,
      paraphrases: paraphrases.length,
      nearMisses: nearMisses.length,
      hitRateRaw: rawHits / paraphrases.length,
      hitRateGuarded: guardedHits / paraphrases.length,
      falseHitRateRaw: rawFalse / nearMisses.length,
      falseHitRateGuarded: guardedFalse / nearMisses.length,
      guardKeeps: rawHits === 0 ? 1 : guardedHits / rawHits,
      counts: { rawHits, guardedHits, rawFalse, guardedFalse },
    };
  });
  if (details) {
    const at = 0.8;
    const refused = paraphrases.filter((pair) => pair.similarity >= at && !pair.guardOk);
    const wrong = nearMisses.filter((pair) => pair.similarity >= at && pair.guardOk);
    process.stdout.write(`\n${set}: paraphrases at >= ${at} the guard refuses (${refused.length})\n`);
    for (const pair of refused)
      process.stdout.write(
        `  ${pair.id} ${pair.similarity.toFixed(3)} [${pair.guardReason}] ${pair.a} | ${pair.b}\n`,
      );
    process.stdout.write(`${set}: near misses at >= ${at} the guard lets through (${wrong.length})\n`);
    for (const pair of wrong)
      process.stdout.write(`  ${pair.id} ${pair.similarity.toFixed(3)} ${pair.a} | ${pair.b}\n`);
  }
  return rows;
}

async function embedTimes(embedder: Embedder) {
  for (let index = 0; index < 50; index += 1) await embedder.embed(`${THIRTY_WORDS} ${index}`);
  const samples = new Float64Array(EMBED_SAMPLES);
  for (let index = 0; index < EMBED_SAMPLES; index += 1) {
    // A different text each time (a trailing counter), so nothing can be remembered between calls.
    const text = `${THIRTY_WORDS.replace('two', String(index))}`;
    const started = performance.now();
    await embedder.embed(text);
    samples[index] = performance.now() - started;
  }
  const single = summarise(samples);
  const batchTexts = Array.from(
    { length: quick ? 320 : 1600 },
    (_value, index) => `${THIRTY_WORDS} (${index})`,
  );
  const started = performance.now();
  for (let offset = 0; offset < batchTexts.length; offset += 16) {
    await Promise.all(batchTexts.slice(offset, offset + 16).map((text) => embedder.embed(text)));
  }
  const perSecond = batchTexts.length / ((performance.now() - started) / 1000);
  return { words: THIRTY_WORDS.split(' ').length, single, batchedPerSecond: perSecond };
}

function randomUnitRecord(dimensions: number): Int8Array {
  const vector = new Float32Array(dimensions);
  let sum = 0;
  for (let index = 0; index < dimensions; index += 1) {
    const value = Math.random() * 2 - 1;
    vector[index] = value;
    sum += value * value;
  }
  const length = Math.sqrt(sum);
  for (let index = 0; index < dimensions; index += 1) vector[index] = (vector[index] as number) / length;
  return quantise(vector);
}

/**
 * The gateway's lookup after an exact miss, minus the embedding (the question's vector is given):
 * SemanticCache.lookup on a real ResponseCache over the store, its bucket filled with random
 * vectors (none near the question: the miss path, which scans and scores everything it may). With
 * the depth valve as the gateway sets it up, and with the whole bucket scanned.
 */
async function lookupTimes(
  store: RuntimeStore,
  storeName: string,
  dimensions: number,
  query: Float32Array,
  writer: RuntimeStore = store,
) {
  const registry = new Registry();
  const log = createLogger('warn', 'bench');
  const mirror = new CacheScopeMirror(store);
  await mirror.start();
  const cache = new ResponseCache({
    runtime: store,
    mirror,
    metrics: createCacheMetrics(registry),
    log,
    maxEntryBytes: 1_000_000,
    timeoutMs: 1_000,
  });
  const metrics = createSemanticMetrics(registry);
  const embedder: Embedder = {
    name: 'given vectors',
    dimensions,
    embed: async () => query,
    close: async () => {},
  };
  const rows = [];
  for (const size of BUCKET_SIZES) {
    const workspaceId = `bench-${size}`;
    const location = { scopeId: `bench/${workspaceId}`, namespace: 'default', hash: '0'.repeat(64) };
    const key = await cache.semanticBucketKey(location, 'bucket', dimensions);
    for (let index = 0; index < size; index += 1) {
      await store.addSemanticCandidate(
        key,
        {
          id: createHash('sha256').update(String(index)).digest('hex'),
          expiresAtMs: Date.now() + 3_600_000,
          vector: randomUnitRecord(dimensions),
        },
        20_000,
        3_600_000,
      );
    }
    for (const mode of ['valve', 'full scan', 'valve, writes'] as const) {
      const valve =
        mode !== 'full scan'
          ? new DepthValve({ maxDepth: VALVE_DEPTH, minDepth: 50, budgetMs: SCAN_BUDGET_MS, maxInFlight: 32 })
          : new DepthValve({
              maxDepth: size,
              minDepth: size,
              budgetMs: Number.POSITIVE_INFINITY,
              maxInFlight: 1e9,
            });
      const semantic = new SemanticCache({
        runtime: store,
        cache,
        embedder,
        valve,
        metrics,
        log,
        guard: true,
        maxBucket: 20_000,
        embedTimeoutMs: 1_000,
        storeTimeoutMs: 1_000,
      });
      const lookup = () =>
        semantic.lookup(
          location,
          { question: 'q', bucket: 'bucket', threshold: 0.8, vector: query },
          'bench',
        );
      // Another pod adds a candidate before each lookup (not timed), the bucket kept at its size.
      const write = async () => {
        if (mode !== 'valve, writes') return;
        const index = Math.floor(Math.random() * 1e12);
        await writer.addSemanticCandidate(
          key,
          {
            id: createHash('sha256').update(`w${index}`).digest('hex'),
            expiresAtMs: Date.now() + 3_600_000,
            vector: randomUnitRecord(dimensions),
          },
          size,
          3_600_000,
        );
      };
      for (let index = 0; index < 20; index += 1) {
        await write();
        await lookup();
      }
      const samples = new Float64Array(LOOKUP_SAMPLES);
      const depths = new Float64Array(LOOKUP_SAMPLES);
      for (let index = 0; index < LOOKUP_SAMPLES; index += 1) {
        await write();
        depths[index] = Math.min(size, valve.depthOf(location.scopeId));
        const started = performance.now();
        const hit = await lookup();
        samples[index] = performance.now() - started;
        if (hit !== undefined) throw new Error('a random vector was served');
      }
      const depth = summarise(depths);
      rows.push({
        store: storeName,
        bucket: size,
        mode,
        depthP50: depth.p50,
        depthMin: Math.min(...depths),
        ...summarise(samples),
      });
    }
  }
  return rows;
}

async function main(): Promise<void> {
  const machine = machineInfo();
  process.stdout.write(
    `host: ${machine.cpuModel} x${machine.cpuCount}, ${machine.node}, load ${machine.loadAvgAtStart.join(' ')}\n`,
  );
  // GATEWAY_SEMCACHE_VERIFIER_DIR, as the gateway reads it: another model to compare (its tokenizer beside it).
  const verifierDir = process.env.GATEWAY_SEMCACHE_VERIFIER_DIR?.trim();
  const verifier = new LocalPairVerifier({ threads: 1, ...(verifierDir ? { modelDir: verifierDir } : {}) });
  // Said before the embedding model loads: a verifier that fails later aborts the process unexplained.
  const missing = verifier.missingFiles();
  if (missing.length > 0)
    throw new Error(`${verifierDir || DEFAULT_VERIFIER_DIR} lacks ${missing.join(', ')}`);
  const embedder = await LocalEmbedder.start({
    modelDir: MODEL_DIR,
    threads: 1,
    quantized: process.env.GATEWAY_SEMCACHE_QUANTIZED?.trim().toLowerCase() !== 'off',
  });
  process.stdout.write(`model: ${embedder.modelFile}\n`);
  process.stdout.write(`verifier: ${verifierDir || DEFAULT_VERIFIER_DIR}\n`);
  try {
    const allSets = [
      { name: 'tuning', file: 'semantic-pairs.jsonl' },
      { name: 'holdout-1', file: 'semantic-pairs-holdout.jsonl' },
      { name: 'holdout-2', file: 'semantic-pairs-holdout-2.jsonl' },
      { name: 'holdout-3', file: 'semantic-pairs-holdout-3.jsonl' },
      { name: 'holdout-4', file: 'semantic-pairs-holdout-4.jsonl' },
      { name: 'holdout-5', file: 'semantic-pairs-holdout-5.jsonl' },
      { name: 'holdout-6', file: 'semantic-pairs-holdout-6.jsonl' },
      { name: 'holdout-7', file: 'semantic-pairs-holdout-7.jsonl' },
      { name: 'holdout-8', file: 'semantic-pairs-holdout-8.jsonl' },
      { name: 'holdout-9', file: 'semantic-pairs-holdout-9.jsonl' },
      { name: 'holdout-10', file: 'semantic-pairs-holdout-10.jsonl' },
      { name: 'holdout-11', file: 'semantic-pairs-holdout-11.jsonl' },
      { name: 'unseen-A', file: 'semantic-pairs-unseen-A.jsonl' },
      { name: 'unseen-B', file: 'semantic-pairs-unseen-B.jsonl' },
      { name: 'unseen-C', file: 'reserved/semantic-pairs-unseen-C.jsonl' },
      { name: 'unseen-D', file: 'reserved/semantic-pairs-unseen-D.jsonl' },
      { name: 'unseen-E', file: 'reserved/semantic-pairs-unseen-E.jsonl' },
      { name: 'unseen-F', file: 'reserved/semantic-pairs-unseen-F.jsonl' },
      { name: 'unseen-G', file: 'reserved/semantic-pairs-unseen-G.jsonl' },
      { name: 'unseen-H', file: 'reserved/semantic-pairs-unseen-H.jsonl' },
      { name: 'unseen-I', file: 'reserved/semantic-pairs-unseen-I.jsonl' },
      { name: 'unseen-J', file: 'reserved/semantic-pairs-unseen-J.jsonl' },
      { name: 'unseen-K', file: 'reserved/semantic-pairs-unseen-K.jsonl' },
      { name: 'unseen-L', file: 'reserved/semantic-pairs-unseen-L.jsonl' },
      { name: 'unseen-M', file: 'reserved/semantic-pairs-unseen-M.jsonl' },
      { name: 'unseen-N', file: 'reserved/semantic-pairs-unseen-N.jsonl' },
      { name: 'unseen-O', file: 'reserved/semantic-pairs-unseen-O.jsonl' },
      { name: 'unseen-P', file: 'reserved/semantic-pairs-unseen-P.jsonl' },
      { name: 'unseen-Q', file: 'reserved/semantic-pairs-unseen-Q.jsonl' },
      { name: 'unseen-R', file: 'reserved/semantic-pairs-unseen-R.jsonl' },
      { name: 'unseen-S', file: 'reserved/semantic-pairs-unseen-S.jsonl' },
      { name: 'unseen-T', file: 'reserved/semantic-pairs-unseen-T.jsonl' },
      { name: 'unseen-U', file: 'reserved/semantic-pairs-unseen-U.jsonl' },
      { name: 'unseen-V', file: 'reserved/semantic-pairs-unseen-V.jsonl' },
      { name: 'unseen-W', file: 'reserved/semantic-pairs-unseen-W.jsonl' },
      { name: 'unseen-X', file: 'reserved/semantic-pairs-unseen-X.jsonl' },
      { name: 'unseen-Y', file: 'reserved/semantic-pairs-unseen-Y.jsonl' },
      { name: 'unseen-Z', file: 'reserved/semantic-pairs-unseen-Z.jsonl' },
      { name: 'unseen-AA', file: 'reserved/semantic-pairs-unseen-AA.jsonl' },
      { name: 'unseen-AB', file: 'reserved/semantic-pairs-unseen-AB.jsonl' },
      { name: 'unseen-AC', file: 'reserved/semantic-pairs-unseen-AC.jsonl' },
      { name: 'unseen-AD', file: 'reserved/semantic-pairs-unseen-AD.jsonl' },
      { name: 'unseen-AE', file: 'reserved/semantic-pairs-unseen-AE.jsonl' },
      { name: 'unseen-AF', file: 'reserved/semantic-pairs-unseen-AF.jsonl' },
      { name: 'unseen-AG', file: 'reserved/semantic-pairs-unseen-AG.jsonl' },
      { name: 'unseen-AH', file: 'reserved/semantic-pairs-unseen-AH.jsonl' },
      { name: 'unseen-AI', file: 'reserved/semantic-pairs-unseen-AI.jsonl' },
      { name: 'unseen-AJ', file: 'reserved/semantic-pairs-unseen-AJ.jsonl' },
      { name: 'unseen-AK', file: 'reserved/semantic-pairs-unseen-AK.jsonl' },
      { name: 'unseen-AL', file: 'reserved/semantic-pairs-unseen-AL.jsonl' },
      { name: 'unseen-AM', file: 'reserved/semantic-pairs-unseen-AM.jsonl' },
      { name: 'unseen-AN', file: 'reserved/semantic-pairs-unseen-AN.jsonl' },
      { name: 'unseen-AO', file: 'reserved/semantic-pairs-unseen-AO.jsonl' },
      { name: 'unseen-AP', file: 'reserved/semantic-pairs-unseen-AP.jsonl' },
      { name: 'unseen-AQ', file: 'reserved/semantic-pairs-unseen-AQ.jsonl' },
      { name: 'unseen-AR', file: 'reserved/semantic-pairs-unseen-AR.jsonl' },
      { name: 'unseen-AS', file: 'reserved/semantic-pairs-unseen-AS.jsonl' },
      { name: 'unseen-AT', file: 'reserved/semantic-pairs-unseen-AT.jsonl' },
      { name: 'unseen-AU', file: 'reserved/semantic-pairs-unseen-AU.jsonl' },
      { name: 'unseen-AV', file: 'reserved/semantic-pairs-unseen-AV.jsonl' },
      { name: 'unseen-AW', file: 'reserved/semantic-pairs-unseen-AW.jsonl' },
      { name: 'unseen-AX', file: 'reserved/semantic-pairs-unseen-AX.jsonl' },
      { name: 'unseen-AY', file: 'reserved/semantic-pairs-unseen-AY.jsonl' },
      { name: 'unseen-AZ', file: 'reserved/semantic-pairs-unseen-AZ.jsonl' },
      { name: 'unseen-BA', file: 'reserved/semantic-pairs-unseen-BA.jsonl' },
      { name: 'unseen-BB', file: 'reserved/semantic-pairs-unseen-BB.jsonl' },
      { name: 'unseen-BC', file: 'reserved/semantic-pairs-unseen-BC.jsonl' },
      { name: 'unseen-BD', file: 'reserved/semantic-pairs-unseen-BD.jsonl' },
      { name: 'unseen-BE', file: 'reserved/semantic-pairs-unseen-BE.jsonl' },
      { name: 'unseen-BF', file: 'reserved/semantic-pairs-unseen-BF.jsonl' },
      { name: 'unseen-BG', file: 'reserved/semantic-pairs-unseen-BG.jsonl' },
      { name: 'unseen-BH', file: 'reserved/semantic-pairs-unseen-BH.jsonl' },
      { name: 'unseen-BI', file: 'reserved/semantic-pairs-unseen-BI.jsonl' },
      { name: 'unseen-BJ', file: 'reserved/semantic-pairs-unseen-BJ.jsonl' },
      { name: 'unseen-BK', file: 'reserved/semantic-pairs-unseen-BK.jsonl' },
      { name: 'unseen-BL', file: 'reserved/semantic-pairs-unseen-BL.jsonl' },
      { name: 'unseen-BM', file: 'reserved/semantic-pairs-unseen-BM.jsonl' },
      { name: 'unseen-BN', file: 'reserved/semantic-pairs-unseen-BN.jsonl' },
      { name: 'unseen-BO', file: 'reserved/semantic-pairs-unseen-BO.jsonl' },
      { name: 'unseen-BP', file: 'reserved/semantic-pairs-unseen-BP.jsonl' },
      { name: 'unseen-BQ', file: 'reserved/semantic-pairs-unseen-BQ.jsonl' },
      { name: 'unseen-BR', file: 'reserved/semantic-pairs-unseen-BR.jsonl' },
      { name: 'unseen-BS', file: 'reserved/semantic-pairs-unseen-BS.jsonl' },
      { name: 'unseen-BT', file: 'reserved/semantic-pairs-unseen-BT.jsonl' },
      { name: 'unseen-BU', file: 'reserved/semantic-pairs-unseen-BU.jsonl' },
      { name: 'unseen-BV', file: 'reserved/semantic-pairs-unseen-BV.jsonl' },
      { name: 'unseen-BW', file: 'reserved/semantic-pairs-unseen-BW.jsonl' },
      { name: 'unseen-BX', file: 'reserved/semantic-pairs-unseen-BX.jsonl' },
      { name: 'unseen-BY', file: 'reserved/semantic-pairs-unseen-BY.jsonl' },
      { name: 'unseen-BZ', file: 'reserved/semantic-pairs-unseen-BZ.jsonl' },
      { name: 'unseen-CA', file: 'reserved/semantic-pairs-unseen-CA.jsonl' },
      { name: 'unseen-CB', file: 'reserved/semantic-pairs-unseen-CB.jsonl' },
      { name: 'unseen-CC', file: 'reserved/semantic-pairs-unseen-CC.jsonl' },
      { name: 'unseen-CD', file: 'reserved/semantic-pairs-unseen-CD.jsonl' },
      { name: 'unseen-CE', file: 'reserved/semantic-pairs-unseen-CE.jsonl' },
      { name: 'unseen-CF', file: 'reserved/semantic-pairs-unseen-CF.jsonl' },
      { name: 'unseen-CG', file: 'reserved/semantic-pairs-unseen-CG.jsonl' },
      { name: 'unseen-CH', file: 'reserved/semantic-pairs-unseen-CH.jsonl' },
      { name: 'unseen-CI', file: 'reserved/semantic-pairs-unseen-CI.jsonl' },
      { name: 'unseen-CJ', file: 'reserved/semantic-pairs-unseen-CJ.jsonl' },
      { name: 'unseen-CK', file: 'reserved/semantic-pairs-unseen-CK.jsonl' },
      { name: 'unseen-CL', file: 'reserved/semantic-pairs-unseen-CL.jsonl' },
      { name: 'unseen-CM', file: 'reserved/semantic-pairs-unseen-CM.jsonl' },
      { name: 'unseen-CN', file: 'reserved/semantic-pairs-unseen-CN.jsonl' },
      { name: 'unseen-CO', file: 'reserved/semantic-pairs-unseen-CO.jsonl' },
      { name: 'unseen-CP', file: 'reserved/semantic-pairs-unseen-CP.jsonl' },
      { name: 'unseen-CQ', file: 'reserved/semantic-pairs-unseen-CQ.jsonl' },
      { name: 'unseen-CR', file: 'reserved/semantic-pairs-unseen-CR.jsonl' },
      { name: 'unseen-CS', file: 'reserved/semantic-pairs-unseen-CS.jsonl' },
      { name: 'unseen-CT', file: 'reserved/semantic-pairs-unseen-CT.jsonl' },
      { name: 'unseen-CU', file: 'reserved/semantic-pairs-unseen-CU.jsonl' },
      { name: 'unseen-CV', file: 'reserved/semantic-pairs-unseen-CV.jsonl' },
      { name: 'unseen-CW', file: 'reserved/semantic-pairs-unseen-CW.jsonl' },
      { name: 'unseen-CX', file: 'reserved/semantic-pairs-unseen-CX.jsonl' },
      { name: 'unseen-CY', file: 'reserved/semantic-pairs-unseen-CY.jsonl' },
      { name: 'unseen-CZ', file: 'reserved/semantic-pairs-unseen-CZ.jsonl' },
      { name: 'unseen-DA', file: 'reserved/semantic-pairs-unseen-DA.jsonl' },
      { name: 'unseen-DB', file: 'reserved/semantic-pairs-unseen-DB.jsonl' },
      { name: 'unseen-DC', file: 'reserved/semantic-pairs-unseen-DC.jsonl' },
      { name: 'unseen-DD', file: 'reserved/semantic-pairs-unseen-DD.jsonl' },
      { name: 'unseen-DE', file: 'reserved/semantic-pairs-unseen-DE.jsonl' },
      { name: 'unseen-DF', file: 'reserved/semantic-pairs-unseen-DF.jsonl' },
      { name: 'unseen-DG', file: 'reserved/semantic-pairs-unseen-DG.jsonl' },
      { name: 'unseen-DH', file: 'reserved/semantic-pairs-unseen-DH.jsonl' },
      { name: 'unseen-DI', file: 'reserved/semantic-pairs-unseen-DI.jsonl' },
      { name: 'unseen-DJ', file: 'reserved/semantic-pairs-unseen-DJ.jsonl' },
      { name: 'unseen-DK', file: 'reserved/semantic-pairs-unseen-DK.jsonl' },
      { name: 'unseen-DL', file: 'reserved/semantic-pairs-unseen-DL.jsonl' },
      { name: 'unseen-DM', file: 'reserved/semantic-pairs-unseen-DM.jsonl' },
      { name: 'unseen-DN', file: 'reserved/semantic-pairs-unseen-DN.jsonl' },
      { name: 'unseen-DO', file: 'reserved/semantic-pairs-unseen-DO.jsonl' },
      { name: 'unseen-DP', file: 'reserved/semantic-pairs-unseen-DP.jsonl' },
      { name: 'unseen-DQ', file: 'reserved/semantic-pairs-unseen-DQ.jsonl' },
      { name: 'unseen-DR', file: 'reserved/semantic-pairs-unseen-DR.jsonl' },
      { name: 'unseen-DS', file: 'reserved/semantic-pairs-unseen-DS.jsonl' },
      { name: 'unseen-DT', file: 'reserved/semantic-pairs-unseen-DT.jsonl' },
      { name: 'unseen-DU', file: 'reserved/semantic-pairs-unseen-DU.jsonl' },
      { name: 'unseen-DV', file: 'reserved/semantic-pairs-unseen-DV.jsonl' },
      { name: 'unseen-DW', file: 'reserved/semantic-pairs-unseen-DW.jsonl' },
      { name: 'unseen-DX', file: 'reserved/semantic-pairs-unseen-DX.jsonl' },
      { name: 'unseen-DY', file: 'reserved/semantic-pairs-unseen-DY.jsonl' },
      { name: 'unseen-DZ', file: 'reserved/semantic-pairs-unseen-DZ.jsonl' },
      { name: 'unseen-EA', file: 'reserved/semantic-pairs-unseen-EA.jsonl' },
      { name: 'unseen-EB', file: 'reserved/semantic-pairs-unseen-EB.jsonl' },
      { name: 'unseen-EC', file: 'reserved/semantic-pairs-unseen-EC.jsonl' },
      { name: 'unseen-ED', file: 'reserved/semantic-pairs-unseen-ED.jsonl' },
      { name: 'unseen-EE', file: 'reserved/semantic-pairs-unseen-EE.jsonl' },
      { name: 'unseen-EF', file: 'reserved/semantic-pairs-unseen-EF.jsonl' },
      { name: 'unseen-EG', file: 'reserved/semantic-pairs-unseen-EG.jsonl' },
      { name: 'unseen-EH', file: 'reserved/semantic-pairs-unseen-EH.jsonl' },
      { name: 'unseen-EI', file: 'reserved/semantic-pairs-unseen-EI.jsonl' },
      { name: 'unseen-EJ', file: 'reserved/semantic-pairs-unseen-EJ.jsonl' },
      { name: 'unseen-EK', file: 'reserved/semantic-pairs-unseen-EK.jsonl' },
      { name: 'unseen-EL', file: 'reserved/semantic-pairs-unseen-EL.jsonl' },
      { name: 'unseen-EM', file: 'reserved/semantic-pairs-unseen-EM.jsonl' },
      { name: 'unseen-EN', file: 'reserved/semantic-pairs-unseen-EN.jsonl' },
      { name: 'unseen-EO', file: 'reserved/semantic-pairs-unseen-EO.jsonl' },
      { name: 'unseen-EP', file: 'reserved/semantic-pairs-unseen-EP.jsonl' },
      { name: 'unseen-EQ', file: 'reserved/semantic-pairs-unseen-EQ.jsonl' },
      { name: 'unseen-ER', file: 'reserved/semantic-pairs-unseen-ER.jsonl' },
      { name: 'unseen-ES', file: 'reserved/semantic-pairs-unseen-ES.jsonl' },
      { name: 'unseen-ET', file: 'reserved/semantic-pairs-unseen-ET.jsonl' },
      { name: 'unseen-EU', file: 'reserved/semantic-pairs-unseen-EU.jsonl' },
      { name: 'unseen-EV', file: 'reserved/semantic-pairs-unseen-EV.jsonl' },
      { name: 'unseen-EW', file: 'reserved/semantic-pairs-unseen-EW.jsonl' },
      { name: 'unseen-EX', file: 'reserved/semantic-pairs-unseen-EX.jsonl' },
      { name: 'unseen-EY', file: 'reserved/semantic-pairs-unseen-EY.jsonl' },
      { name: 'unseen-EZ', file: 'reserved/semantic-pairs-unseen-EZ.jsonl' },
      { name: 'unseen-FA', file: 'reserved/semantic-pairs-unseen-FA.jsonl' },
      { name: 'unseen-FB', file: 'reserved/semantic-pairs-unseen-FB.jsonl' },
      { name: 'unseen-FC', file: 'reserved/semantic-pairs-unseen-FC.jsonl' },
      { name: 'unseen-FD', file: 'reserved/semantic-pairs-unseen-FD.jsonl' },
      { name: 'unseen-FE', file: 'reserved/semantic-pairs-unseen-FE.jsonl' },
      { name: 'unseen-FF', file: 'reserved/semantic-pairs-unseen-FF.jsonl' },
      { name: 'unseen-FG', file: 'reserved/semantic-pairs-unseen-FG.jsonl' },
      { name: 'unseen-FH', file: 'reserved/semantic-pairs-unseen-FH.jsonl' },
      { name: 'unseen-FI', file: 'reserved/semantic-pairs-unseen-FI.jsonl' },
      { name: 'unseen-FJ', file: 'reserved/semantic-pairs-unseen-FJ.jsonl' },
      { name: 'unseen-FK', file: 'reserved/semantic-pairs-unseen-FK.jsonl' },
      { name: 'unseen-FL', file: 'reserved/semantic-pairs-unseen-FL.jsonl' },
      { name: 'unseen-FM', file: 'reserved/semantic-pairs-unseen-FM.jsonl' },
      { name: 'unseen-FN', file: 'reserved/semantic-pairs-unseen-FN.jsonl' },
      { name: 'unseen-FO', file: 'reserved/semantic-pairs-unseen-FO.jsonl' },
      { name: 'unseen-FP', file: 'reserved/semantic-pairs-unseen-FP.jsonl' },
      { name: 'unseen-FQ', file: 'reserved/semantic-pairs-unseen-FQ.jsonl' },
      { name: 'unseen-FR', file: 'reserved/semantic-pairs-unseen-FR.jsonl' },
      { name: 'unseen-FS', file: 'reserved/semantic-pairs-unseen-FS.jsonl' },
      { name: 'unseen-FT', file: 'reserved/semantic-pairs-unseen-FT.jsonl' },
      { name: 'unseen-FU', file: 'reserved/semantic-pairs-unseen-FU.jsonl' },
      { name: 'unseen-FV', file: 'reserved/semantic-pairs-unseen-FV.jsonl' },
      { name: 'unseen-FW', file: 'reserved/semantic-pairs-unseen-FW.jsonl' },
      { name: 'unseen-FX', file: 'reserved/semantic-pairs-unseen-FX.jsonl' },
      { name: 'unseen-FY', file: 'reserved/semantic-pairs-unseen-FY.jsonl' },
      { name: 'unseen-FZ', file: 'reserved/semantic-pairs-unseen-FZ.jsonl' },
      { name: 'unseen-GA', file: 'reserved/semantic-pairs-unseen-GA.jsonl' },
      { name: 'unseen-GB', file: 'reserved/semantic-pairs-unseen-GB.jsonl' },
      { name: 'unseen-GC', file: 'reserved/semantic-pairs-unseen-GC.jsonl' },
      { name: 'unseen-GD', file: 'reserved/semantic-pairs-unseen-GD.jsonl' },
      { name: 'unseen-GE', file: 'reserved/semantic-pairs-unseen-GE.jsonl' },
      { name: 'unseen-GF', file: 'reserved/semantic-pairs-unseen-GF.jsonl' },
      { name: 'unseen-GG', file: 'reserved/semantic-pairs-unseen-GG.jsonl' },
      { name: 'unseen-GH', file: 'reserved/semantic-pairs-unseen-GH.jsonl' },
      { name: 'unseen-GI', file: 'reserved/semantic-pairs-unseen-GI.jsonl' },
      { name: 'unseen-GJ', file: 'reserved/semantic-pairs-unseen-GJ.jsonl' },
      { name: 'unseen-GK', file: 'reserved/semantic-pairs-unseen-GK.jsonl' },
      { name: 'unseen-GL', file: 'reserved/semantic-pairs-unseen-GL.jsonl' },
      { name: 'unseen-GM', file: 'reserved/semantic-pairs-unseen-GM.jsonl' },
      { name: 'unseen-GN', file: 'reserved/semantic-pairs-unseen-GN.jsonl' },
      { name: 'unseen-GO', file: 'reserved/semantic-pairs-unseen-GO.jsonl' },
      { name: 'unseen-GP', file: 'reserved/semantic-pairs-unseen-GP.jsonl' },
      { name: 'unseen-GQ', file: 'reserved/semantic-pairs-unseen-GQ.jsonl' },
      { name: 'unseen-GR', file: 'reserved/semantic-pairs-unseen-GR.jsonl' },
      { name: 'unseen-GS', file: 'reserved/semantic-pairs-unseen-GS.jsonl' },
      { name: 'unseen-GT', file: 'reserved/semantic-pairs-unseen-GT.jsonl' },
      { name: 'unseen-GU', file: 'reserved/semantic-pairs-unseen-GU.jsonl' },
      { name: 'unseen-GV', file: 'reserved/semantic-pairs-unseen-GV.jsonl' },
      { name: 'unseen-GW', file: 'reserved/semantic-pairs-unseen-GW.jsonl' },
      { name: 'unseen-GX', file: 'reserved/semantic-pairs-unseen-GX.jsonl' },
      { name: 'unseen-GY', file: 'reserved/semantic-pairs-unseen-GY.jsonl' },
      { name: 'unseen-GZ', file: 'reserved/semantic-pairs-unseen-GZ.jsonl' },
      { name: 'unseen-HA', file: 'reserved/semantic-pairs-unseen-HA.jsonl' },
      { name: 'unseen-HB', file: 'reserved/semantic-pairs-unseen-HB.jsonl' },
      { name: 'unseen-HC', file: 'reserved/semantic-pairs-unseen-HC.jsonl' },
      { name: 'unseen-HD', file: 'reserved/semantic-pairs-unseen-HD.jsonl' },
      { name: 'unseen-HE', file: 'reserved/semantic-pairs-unseen-HE.jsonl' },
      { name: 'unseen-HF', file: 'reserved/semantic-pairs-unseen-HF.jsonl' },
      { name: 'unseen-HG', file: 'reserved/semantic-pairs-unseen-HG.jsonl' },
      { name: 'unseen-HH', file: 'reserved/semantic-pairs-unseen-HH.jsonl' },
      { name: 'unseen-HI', file: 'reserved/semantic-pairs-unseen-HI.jsonl' },
      { name: 'unseen-HJ', file: 'reserved/semantic-pairs-unseen-HJ.jsonl' },
      { name: 'unseen-HK', file: 'reserved/semantic-pairs-unseen-HK.jsonl' },
      { name: 'unseen-HL', file: 'reserved/semantic-pairs-unseen-HL.jsonl' },
      { name: 'unseen-HM', file: 'reserved/semantic-pairs-unseen-HM.jsonl' },
      { name: 'unseen-HN', file: 'reserved/semantic-pairs-unseen-HN.jsonl' },
      { name: 'unseen-HO', file: 'reserved/semantic-pairs-unseen-HO.jsonl' },
      { name: 'unseen-HP', file: 'reserved/semantic-pairs-unseen-HP.jsonl' },
      { name: 'unseen-HQ', file: 'reserved/semantic-pairs-unseen-HQ.jsonl' },
      { name: 'unseen-HR', file: 'reserved/semantic-pairs-unseen-HR.jsonl' },
      { name: 'unseen-HS', file: 'reserved/semantic-pairs-unseen-HS.jsonl' },
      { name: 'unseen-HT', file: 'reserved/semantic-pairs-unseen-HT.jsonl' },
      { name: 'unseen-HU', file: 'reserved/semantic-pairs-unseen-HU.jsonl' },
      { name: 'unseen-HV', file: 'reserved/semantic-pairs-unseen-HV.jsonl' },
      { name: 'unseen-HW', file: 'reserved/semantic-pairs-unseen-HW.jsonl' },
      { name: 'unseen-HX', file: 'reserved/semantic-pairs-unseen-HX.jsonl' },
      { name: 'unseen-HY', file: 'reserved/semantic-pairs-unseen-HY.jsonl' },
      { name: 'unseen-HZ', file: 'reserved/semantic-pairs-unseen-HZ.jsonl' },
      { name: 'unseen-IA', file: 'reserved/semantic-pairs-unseen-IA.jsonl' },
      { name: 'unseen-IB', file: 'reserved/semantic-pairs-unseen-IB.jsonl' },
      { name: 'unseen-IC', file: 'reserved/semantic-pairs-unseen-IC.jsonl' },
      { name: 'unseen-ID', file: 'reserved/semantic-pairs-unseen-ID.jsonl' },
      { name: 'unseen-IE', file: 'reserved/semantic-pairs-unseen-IE.jsonl' },
      { name: 'unseen-IF', file: 'reserved/semantic-pairs-unseen-IF.jsonl' },
      { name: 'unseen-IG', file: 'reserved/semantic-pairs-unseen-IG.jsonl' },
      { name: 'unseen-IH', file: 'reserved/semantic-pairs-unseen-IH.jsonl' },
      { name: 'unseen-II', file: 'reserved/semantic-pairs-unseen-II.jsonl' },
      { name: 'unseen-IJ', file: 'reserved/semantic-pairs-unseen-IJ.jsonl' },
      { name: 'unseen-IK', file: 'reserved/semantic-pairs-unseen-IK.jsonl' },
      { name: 'unseen-IL', file: 'reserved/semantic-pairs-unseen-IL.jsonl' },
      { name: 'unseen-IM', file: 'reserved/semantic-pairs-unseen-IM.jsonl' },
      { name: 'unseen-IN', file: 'reserved/semantic-pairs-unseen-IN.jsonl' },
      { name: 'unseen-IO', file: 'reserved/semantic-pairs-unseen-IO.jsonl' },
      { name: 'unseen-IP', file: 'reserved/semantic-pairs-unseen-IP.jsonl' },
      { name: 'unseen-IQ', file: 'reserved/semantic-pairs-unseen-IQ.jsonl' },
      { name: 'unseen-IR', file: 'reserved/semantic-pairs-unseen-IR.jsonl' },
      { name: 'unseen-IS', file: 'reserved/semantic-pairs-unseen-IS.jsonl' },
      { name: 'unseen-IT', file: 'reserved/semantic-pairs-unseen-IT.jsonl' },
      { name: 'unseen-IU', file: 'reserved/semantic-pairs-unseen-IU.jsonl' },
      { name: 'unseen-IV', file: 'reserved/semantic-pairs-unseen-IV.jsonl' },
      { name: 'unseen-IW', file: 'reserved/semantic-pairs-unseen-IW.jsonl' },
      { name: 'unseen-IX', file: 'reserved/semantic-pairs-unseen-IX.jsonl' },
      { name: 'unseen-IY', file: 'reserved/semantic-pairs-unseen-IY.jsonl' },
      { name: 'unseen-IZ', file: 'reserved/semantic-pairs-unseen-IZ.jsonl' },
      { name: 'unseen-JA', file: 'reserved/semantic-pairs-unseen-JA.jsonl' },
      { name: 'unseen-JB', file: 'reserved/semantic-pairs-unseen-JB.jsonl' },
      { name: 'unseen-JC', file: 'reserved/semantic-pairs-unseen-JC.jsonl' },
      { name: 'unseen-JD', file: 'reserved/semantic-pairs-unseen-JD.jsonl' },
      { name: 'unseen-JE', file: 'reserved/semantic-pairs-unseen-JE.jsonl' },
      { name: 'unseen-JF', file: 'reserved/semantic-pairs-unseen-JF.jsonl' },
      { name: 'unseen-JG', file: 'reserved/semantic-pairs-unseen-JG.jsonl' },
      { name: 'unseen-JH', file: 'reserved/semantic-pairs-unseen-JH.jsonl' },
      { name: 'unseen-JI', file: 'reserved/semantic-pairs-unseen-JI.jsonl' },
      { name: 'unseen-JJ', file: 'reserved/semantic-pairs-unseen-JJ.jsonl' },
      { name: 'unseen-JK', file: 'reserved/semantic-pairs-unseen-JK.jsonl' },
      { name: 'unseen-JL', file: 'reserved/semantic-pairs-unseen-JL.jsonl' },
      { name: 'unseen-JM', file: 'reserved/semantic-pairs-unseen-JM.jsonl' },
      { name: 'unseen-JN', file: 'reserved/semantic-pairs-unseen-JN.jsonl' },
      { name: 'unseen-JO', file: 'reserved/semantic-pairs-unseen-JO.jsonl' },
      { name: 'unseen-JP', file: 'reserved/semantic-pairs-unseen-JP.jsonl' },
      { name: 'unseen-JQ', file: 'reserved/semantic-pairs-unseen-JQ.jsonl' },
      { name: 'unseen-JR', file: 'reserved/semantic-pairs-unseen-JR.jsonl' },
      { name: 'unseen-JS', file: 'reserved/semantic-pairs-unseen-JS.jsonl' },
      { name: 'unseen-JT', file: 'reserved/semantic-pairs-unseen-JT.jsonl' },
      { name: 'unseen-JU', file: 'reserved/semantic-pairs-unseen-JU.jsonl' },
      { name: 'unseen-JV', file: 'reserved/semantic-pairs-unseen-JV.jsonl' },
      { name: 'unseen-JW', file: 'reserved/semantic-pairs-unseen-JW.jsonl' },
      { name: 'unseen-JX', file: 'reserved/semantic-pairs-unseen-JX.jsonl' },
      { name: 'unseen-JY', file: 'reserved/semantic-pairs-unseen-JY.jsonl' },
      { name: 'unseen-JZ', file: 'reserved/semantic-pairs-unseen-JZ.jsonl' },
      { name: 'unseen-KA', file: 'reserved/semantic-pairs-unseen-KA.jsonl' },
      { name: 'unseen-KB', file: 'reserved/semantic-pairs-unseen-KB.jsonl' },
      { name: 'unseen-KC', file: 'reserved/semantic-pairs-unseen-KC.jsonl' },
      { name: 'unseen-KD', file: 'reserved/semantic-pairs-unseen-KD.jsonl' },
      { name: 'unseen-KE', file: 'reserved/semantic-pairs-unseen-KE.jsonl' },
      { name: 'unseen-KF', file: 'reserved/semantic-pairs-unseen-KF.jsonl' },
      { name: 'unseen-KG', file: 'reserved/semantic-pairs-unseen-KG.jsonl' },
      { name: 'unseen-KH', file: 'reserved/semantic-pairs-unseen-KH.jsonl' },
      { name: 'unseen-KI', file: 'reserved/semantic-pairs-unseen-KI.jsonl' },
      { name: 'unseen-KJ', file: 'reserved/semantic-pairs-unseen-KJ.jsonl' },
      { name: 'unseen-KK', file: 'reserved/semantic-pairs-unseen-KK.jsonl' },
      { name: 'unseen-KL', file: 'reserved/semantic-pairs-unseen-KL.jsonl' },
      { name: 'unseen-KM', file: 'reserved/semantic-pairs-unseen-KM.jsonl' },
      { name: 'unseen-KN', file: 'reserved/semantic-pairs-unseen-KN.jsonl' },
      { name: 'unseen-KO', file: 'reserved/semantic-pairs-unseen-KO.jsonl' },
      { name: 'unseen-KP', file: 'reserved/semantic-pairs-unseen-KP.jsonl' },
      { name: 'unseen-KQ', file: 'reserved/semantic-pairs-unseen-KQ.jsonl' },
      { name: 'unseen-KS', file: 'reserved/semantic-pairs-unseen-KS.jsonl' },
      { name: 'unseen-KT', file: 'reserved/semantic-pairs-unseen-KT.jsonl' },
      { name: 'unseen-KU', file: 'reserved/semantic-pairs-unseen-KU.jsonl' },
      { name: 'unseen-KV', file: 'reserved/semantic-pairs-unseen-KV.jsonl' },
      { name: 'unseen-KW', file: 'reserved/semantic-pairs-unseen-KW.jsonl' },
      { name: 'unseen-KX', file: 'reserved/semantic-pairs-unseen-KX.jsonl' },
      { name: 'unseen-KY', file: 'reserved/semantic-pairs-unseen-KY.jsonl' },
      { name: 'unseen-KZ', file: 'reserved/semantic-pairs-unseen-KZ.jsonl' },
      { name: 'unseen-LA', file: 'reserved/semantic-pairs-unseen-LA.jsonl' },
      { name: 'unseen-LB', file: 'reserved/semantic-pairs-unseen-LB.jsonl' },
      { name: 'unseen-LC', file: 'reserved/semantic-pairs-unseen-LC.jsonl' },
      { name: 'unseen-LD', file: 'reserved/semantic-pairs-unseen-LD.jsonl' },
      { name: 'unseen-LE', file: 'reserved/semantic-pairs-unseen-LE.jsonl' },
      { name: 'unseen-LF', file: 'reserved/semantic-pairs-unseen-LF.jsonl' },
      { name: 'unseen-LG', file: 'reserved/semantic-pairs-unseen-LG.jsonl' },
      { name: 'unseen-LH', file: 'reserved/semantic-pairs-unseen-LH.jsonl' },
      { name: 'unseen-LI', file: 'reserved/semantic-pairs-unseen-LI.jsonl' },
      { name: 'unseen-LJ', file: 'reserved/semantic-pairs-unseen-LJ.jsonl' },
      { name: 'unseen-LK', file: 'reserved/semantic-pairs-unseen-LK.jsonl' },
      { name: 'unseen-LL', file: 'reserved/semantic-pairs-unseen-LL.jsonl' },
      { name: 'unseen-LM', file: 'reserved/semantic-pairs-unseen-LM.jsonl' },
      { name: 'unseen-LN', file: 'reserved/semantic-pairs-unseen-LN.jsonl' },
      { name: 'unseen-LO', file: 'reserved/semantic-pairs-unseen-LO.jsonl' },
      { name: 'unseen-LP', file: 'reserved/semantic-pairs-unseen-LP.jsonl' },
      { name: 'unseen-LQ', file: 'reserved/semantic-pairs-unseen-LQ.jsonl' },
      { name: 'unseen-LR', file: 'reserved/semantic-pairs-unseen-LR.jsonl' },
      { name: 'unseen-LS', file: 'reserved/semantic-pairs-unseen-LS.jsonl' },
      { name: 'unseen-LT', file: 'reserved/semantic-pairs-unseen-LT.jsonl' },
      { name: 'unseen-LU', file: 'reserved/semantic-pairs-unseen-LU.jsonl' },
      { name: 'unseen-LV', file: 'reserved/semantic-pairs-unseen-LV.jsonl' },
      { name: 'unseen-LW', file: 'reserved/semantic-pairs-unseen-LW.jsonl' },
      { name: 'unseen-LX', file: 'reserved/semantic-pairs-unseen-LX.jsonl' },
      { name: 'unseen-LY', file: 'reserved/semantic-pairs-unseen-LY.jsonl' },
      { name: 'unseen-LZ', file: 'reserved/semantic-pairs-unseen-LZ.jsonl' },
      { name: 'unseen-MA', file: 'reserved/semantic-pairs-unseen-MA.jsonl' },
      { name: 'unseen-MB', file: 'reserved/semantic-pairs-unseen-MB.jsonl' },
      { name: 'unseen-MC', file: 'reserved/semantic-pairs-unseen-MC.jsonl' },
      { name: 'unseen-MD', file: 'reserved/semantic-pairs-unseen-MD.jsonl' },
      { name: 'unseen-ME', file: 'reserved/semantic-pairs-unseen-ME.jsonl' },
      { name: 'unseen-MF', file: 'reserved/semantic-pairs-unseen-MF.jsonl' },
      { name: 'unseen-MG', file: 'reserved/semantic-pairs-unseen-MG.jsonl' },
      { name: 'unseen-MH', file: 'reserved/semantic-pairs-unseen-MH.jsonl' },
      { name: 'unseen-MI', file: 'reserved/semantic-pairs-unseen-MI.jsonl' },
      { name: 'unseen-MJ', file: 'reserved/semantic-pairs-unseen-MJ.jsonl' },
      { name: 'unseen-MK', file: 'reserved/semantic-pairs-unseen-MK.jsonl' },
      { name: 'unseen-ML', file: 'reserved/semantic-pairs-unseen-ML.jsonl' },
      { name: 'unseen-MM', file: 'reserved/semantic-pairs-unseen-MM.jsonl' },
    ];
    // --sets=tuning,holdout-5 measures only those (the held-out sets are measured once each).
    const only = process.argv
      .find((arg) => arg.startsWith('--sets='))
      ?.slice('--sets='.length)
      .split(',');
    // The reserved sets (data/reserved/README.md) only when named: each is measured once.
    const sets = allSets.filter(
      (set) =>
        (only === undefined ? !set.file.startsWith('reserved/') : only.includes(set.name)) &&
        existsSync(join(BENCH_DIR, 'data', set.file)),
    );
    // The guard as the gateway runs it: with the word list that tells a typo from another word.
    await Promise.all([loadEnglishWords(), loadWordnet(), loadThesaurus()]);
    const accuracyRows = [];
    const verifierRows = [];
    const perPair = [];
    for (const set of sets) {
      const scored = await scorePairs(embedder, verifier, readPairs(set.file));
      perPair.push(...scored.map((pair) => ({ set: set.name, ...pair })));
      accuracyRows.push(...accuracy(set.name, scored));
      verifierRows.push(...verifierAccuracy(set.name, scored));
    }
    process.stdout.write(
      `\nAccuracy (hit rate on paraphrases, false-hit rate on near misses; raw similarity, then with the guard)\n${table(
        ['set', 'threshold', 'pairs p/n', 'hit raw', 'hit guard', 'false raw', 'false guard', 'guard keeps'],
        accuracyRows.map((row) => [
          row.set,
          row.threshold.toFixed(1),
          `${row.paraphrases}/${row.nearMisses}`,
          percent(row.counts.rawHits, row.paraphrases),
          percent(row.counts.guardedHits, row.paraphrases),
          percent(row.counts.rawFalse, row.nearMisses),
          percent(row.counts.guardedFalse, row.nearMisses),
          percent(row.counts.guardedHits, row.counts.rawHits),
        ]),
      )}\n`,
    );

    process.stdout.write(
      `\nAt 0.8: near misses served and paraphrase hits kept, by what decides besides the similarity (the gateway: verifier, lean rules)\n${table(
        ['set', 'decider', 'pairs p/n', 'near misses served', 'paraphrase hits kept'],
        verifierRows.map((row) => [
          row.set,
          row.decider,
          `${row.paraphrases}/${row.nearMisses}`,
          `${row.served}/${row.nearMisses} = ${percent(row.served, row.nearMisses)}`,
          `${row.kept}/${row.rawHits} = ${percent(row.kept, row.rawHits)}`,
        ]),
      )}\n`,
    );
    const kinds = verifierRows.filter((row) => row.decider === GATEWAY_DECIDER);
    process.stdout.write(
      `\nBy kind, the gateway's decision at 0.8 (pairs, above 0.8, served)\n${table(
        ['set', 'kind', 'pairs', 'above 0.8', 'served'],
        kinds.flatMap((row) =>
          Object.entries(row.byKind)
            .sort(([left], [right]) => left.localeCompare(right))
            .map(([kind, entry]) => [
              row.set,
              kind,
              String(entry.pairs),
              String(entry.above),
              String(entry.served),
            ]),
        ),
      )}\n`,
    );

    const verification = await verifyTimes(verifier);
    process.stdout.write(
      `\nVerifying a pair of 30-word questions, one at a time (ms), one ONNX thread\n${table(
        ['samples', 'p50', 'p90', 'p99', 'max'],
        [
          [
            String(verification.count),
            f3(verification.p50),
            f3(verification.p90),
            f3(verification.p99),
            f3(verification.max),
          ],
        ],
      )}\n`,
    );

    const words = await changedWordsTimes(verifier);
    process.stdout.write(
      `\nReading one changed word of that question alone, both orders (ms): added where the verifier overrules\n${table(
        ['samples', 'p50', 'p90', 'p99', 'max'],
        [[String(words.count), f3(words.p50), f3(words.p90), f3(words.p99), f3(words.max)]],
      )}\n`,
    );

    const embedding = await embedTimes(embedder);
    process.stdout.write(
      `\nEmbedding a ${embedding.words}-word message, one at a time (ms), one ONNX thread\n${table(
        ['samples', 'p50', 'p90', 'p99', 'max'],
        [
          [
            String(embedding.single.count),
            f3(embedding.single.p50),
            f3(embedding.single.p90),
            f3(embedding.single.p99),
            f3(embedding.single.max),
          ],
        ],
      )}\nbatched 16 at a time: ${embedding.batchedPerSecond.toFixed(0)} texts/s\n`,
    );

    const query = await embedder.embed('What is the capital of France?');
    const lookupRows = [];
    const memory = new MemoryRuntimeStore();
    try {
      lookupRows.push(...(await lookupTimes(memory, 'memory', embedder.dimensions, query)));
    } finally {
      await memory.close();
    }
    const redis = await startRedis();
    const redisStore = new RedisRuntimeStore({ url: redis.url, keyPrefix: 'bench:' });
    const otherPod = new RedisRuntimeStore({ url: redis.url, keyPrefix: 'bench:' });
    try {
      lookupRows.push(...(await lookupTimes(redisStore, 'redis', embedder.dimensions, query, otherPod)));
    } finally {
      await Promise.all([redisStore.close(), otherPod.close()]);
    }
    process.stdout.write(
      `\nSemantic lookup after an exact miss, embedding aside (ms): read the newest candidates, score, keep the best\n${table(
        ['store', 'bucket', 'scan', 'depth p50', 'depth min', 'p50', 'p99', 'max', 'p99 + verify p99'],
        lookupRows.map((row) => [
          row.store,
          String(row.bucket),
          row.mode,
          String(row.depthP50),
          String(row.depthMin),
          f3(row.p50),
          f3(row.p99),
          f3(row.max),
          f3(row.p99 + verification.p99),
        ]),
      )}\n`,
    );

    const stamp = new Date().toISOString().replaceAll(/[:.]/g, '-');
    mkdirSync(join(BENCH_DIR, 'results'), { recursive: true });
    const file = join(BENCH_DIR, 'results', `semantic-${stamp}.json`);
    writeFileSync(
      file,
      `${JSON.stringify({ machine, settings: { EMBED_SAMPLES, LOOKUP_SAMPLES, MODEL_DIR, modelFile: embedder.modelFile, verifierMinScore: VERIFIER_MIN_SCORE, verifierDir: verifierDir || DEFAULT_VERIFIER_DIR }, accuracy: accuracyRows, verifier: verifierRows, pairs: perPair, verification, embedding, lookup: lookupRows }, null, 2)}\n`,
    );
    process.stdout.write(`\nresults: ${file}\n`);
  } finally {
    await Promise.all([embedder.close(), verifier.close()]);
    await stopAll();
  }
}

await main();
