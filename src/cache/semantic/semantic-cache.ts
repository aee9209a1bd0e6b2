/**
 * Semantic lookups and writes (specification 4.3, DESIGN section 6). After an exact miss, the
 * question (the latest user message) is embedded and the newest candidates of its bucket (the
 * rest of the request, hashed) are scored, as many as the depth valve allows; the best ones at or
 * above the threshold are tried in order: the answer they point at must still be fresh and
 * unrevalidated, and pass the hit guard (in `lean` mode, only the rules the verifier keeps; beside
 * the verifier, the question is first reworded toward the candidate's where they only write the
 * same thing differently: wording.ts); the first that does is scored by the pair verifier
 * (pair-verifier.ts; it reads the two without the leading clauses they share), one verification
 * per lookup at most, and served only if it passes (with a higher score when only the
 * substitution rule refused it). A write adds the question's vector to the bucket, next to the
 * exact entry it points at. Buckets live in the entries' scope (workspace, namespace, purge
 * generations), so a purge drops them too and nothing crosses a workspace or a namespace.
 */

import type { Logger } from '../../observability/logger.ts';
import { type RequestTrace, traced } from '../../observability/tracing.ts';
import type { RuntimeStore, SemanticCandidate } from '../../stores/types.ts';
import { failAfter } from '../../stores/wait-at-most.ts';
import type { CacheEntry, CacheLocation, ResponseCache } from '../response-cache.ts';
import type { DepthValve } from './depth-valve.ts';
import { type Embedder, quantise, similarity } from './embedder.ts';
import { loadEnglishWords } from './guard/english-words.ts';
import { checkHitGuard, type GuardVerdict } from './guard/hit-guard.ts';
import { loadThesaurus } from './guard/thesaurus.ts';
import { loadWordnet } from './guard/wordnet.ts';
import {
  changedWordsScore,
  overrules,
  type PairVerifier,
  sameWording,
  synonymWordsNeed,
  VERIFIER_GUARD,
  VERIFIER_MIN_SCORE,
  VERIFIER_WORDS_OVERRULE,
  withoutSharedContext,
} from './pair-verifier.ts';
import type { SemanticMetrics } from './semantic-metrics.ts';
import { alignWording } from './wording.ts';

/** The semantic part of a request's cache plan (cache-plan.ts). */
export interface SemanticPlan {
  /** The latest user message: what is embedded and compared. */
  question: string;
  /** The hash of everything else: the bucket of candidates it may match. */
  bucket: string;
  /** Cosine similarity a candidate must reach (x-service-cache-threshold, 0..1). */
  threshold: number;
  /** The question's vector, once the lookup embedded it (the write reuses it). */
  vector?: Float32Array;
}

export interface SemanticHit {
  entry: CacheEntry;
  similarity: number;
  /** The exact entry's hash, where the answer was found. */
  id: string;
}

export interface SemanticCacheOptions {
  runtime: RuntimeStore;
  cache: ResponseCache;
  embedder: Embedder;
  valve: DepthValve;
  metrics: SemanticMetrics;
  log: Logger;
  /** Whether the hit guard checks candidates (GATEWAY_SEMCACHE_GUARD; on by default). */
  guard: boolean;
  /** Candidates kept per bucket (GATEWAY_SEMCACHE_MAX_BUCKET). */
  maxBucket: number;
  /** Bound on embedding one question, queueing included. */
  embedTimeoutMs: number;
  /**
   * Scores the candidate a lookup would serve (GATEWAY_SEMCACHE_VERIFIER; on by default). Without
   * it, the guard alone decides.
   */
  verifier?: PairVerifier;
  /** Bound on one verification, queueing included (GATEWAY_SEMCACHE_VERIFY_TIMEOUT_MS). */
  verifyTimeoutMs?: number;
  /**
   * The guard's rules beside the verifier (GATEWAY_SEMCACHE_VERIFIER_RULES): `lean` (the default:
   * VERIFIER_GUARD) or `all`.
   */
  verifierRules?: 'all' | 'lean';
  /** Bound on each store call. */
  storeTimeoutMs: number;
}

const PASSED: GuardVerdict = { ok: true };

/** Candidates above the threshold tried in turn (their answers may be gone, or refused by the guard). */
const MAX_TRIED = 3;

class SemanticTimeoutError extends Error {}

function bounded<T>(operation: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  return failAfter(operation, timeoutMs, () => new SemanticTimeoutError(`${what} took over ${timeoutMs} ms`));
}

/** The `count` most similar candidates, best first (one pass: buckets are large, the few best are wanted). */
export function bestCandidates(
  vector: Float32Array,
  candidates: readonly SemanticCandidate[],
  count: number,
): { id: string; similarity: number }[] {
  const best: { candidate: SemanticCandidate; similarity: number }[] = [];
  for (const candidate of candidates) {
    const score = similarity(vector, candidate.vector);
    if (best.length === count && score <= (best[count - 1]?.similarity ?? 0)) continue;
    let at = best.length === count ? count - 1 : best.length;
    while (at > 0 && (best[at - 1]?.similarity ?? 0) < score) {
      best[at] = best[at - 1] as (typeof best)[number];
      at -= 1;
    }
    best[at] = { candidate, similarity: score };
  }
  return best.map((entry) => ({ id: entry.candidate.id, similarity: entry.similarity }));
}

/** A failing model or store is logged once a minute, not on every request (the metrics count each). */
const WARN_INTERVAL_MS = 60_000;

export class SemanticCache {
  readonly #options: SemanticCacheOptions;
  #warnedAt = Number.NEGATIVE_INFINITY;
  /** The guard's word list, loaded by the first semantic request (like the model). */
  #words: Promise<void> | undefined;

  constructor(options: SemanticCacheOptions) {
    this.#options = options;
  }

  /**
   * The guard forgives a typo ("recieve") only once it can tell a typo from another word, and
   * leaves a synonym in some sense to the verifier and mends a name's typo ("Seatle") only once it
   * has WordNet's files: the word list and those (about 4 and 2 MB resident) are read when the
   * first request needs an embedding, not at start, so a gateway whose clients never ask for
   * semantic matching never holds them.
   */
  #wordList(): Promise<void> | undefined {
    if (!this.#options.guard) return undefined;
    this.#words ??= Promise.all([
      loadEnglishWords().catch((error: unknown) =>
        this.#options.log.warn(
          { err: error },
          'semantic cache: word list not loaded; the hit guard forgives no typos',
        ),
      ),
      loadWordnet().catch((error: unknown) =>
        this.#options.log.warn(
          { err: error },
          "semantic cache: WordNet's files not loaded; the hit guard refuses every synonym it does not align",
        ),
      ),
      loadThesaurus().catch((error: unknown) =>
        this.#options.log.warn(
          { err: error },
          'semantic cache: the thesaurus not loaded; the hit guard refuses the synonyms only it lists',
        ),
      ),
    ]).then(() => undefined);
    return this.#words;
  }

  get embedderName(): string {
    return this.#options.embedder.name;
  }

  /** The best servable candidate, or undefined (the reason counted). Never throws. */
  async lookup(
    location: CacheLocation,
    plan: SemanticPlan,
    routeLabel: string,
    requestTrace?: RequestTrace,
  ): Promise<SemanticHit | undefined> {
    const { metrics, valve, cache, runtime, embedder } = this.#options;
    metrics.lookups.inc({ route: routeLabel });
    const vector = await traced(requestTrace, 'gateway.cache.embed', () => this.#embed(plan));
    if (vector === undefined) return undefined;
    const lookup = valve.open(location.scopeId);
    metrics.depth.observe(lookup.depth);
    const scanStarted = performance.now();
    let candidates: SemanticCandidate[];
    try {
      const key = await cache.semanticBucketKey(location, plan.bucket, embedder.dimensions);
      candidates = await bounded(
        runtime.scanSemanticCandidates(key, embedder.dimensions, lookup.depth, {
          query: vector,
          count: MAX_TRIED,
        }),
        this.#options.storeTimeoutMs,
        'semantic scan',
      );
    } catch (error) {
      lookup.done(this.#options.storeTimeoutMs);
      this.#warn(error, 'semantic index unavailable: falling back to exact matching');
      metrics.misses.inc({ reason: 'store_failed' });
      return undefined;
    }
    const best = bestCandidates(vector, candidates, MAX_TRIED);
    lookup.done(performance.now() - scanStarted);
    if (best.length === 0) {
      metrics.misses.inc({ reason: 'no_candidates' });
      return undefined;
    }
    metrics.similarity.observe(Math.max(0, best[0]?.similarity ?? 0));
    let reason = 'below_threshold';
    for (const candidate of best) {
      if (candidate.similarity < plan.threshold) break;
      const entry = await cache.freshEntry({ ...location, hash: candidate.id });
      if (entry === undefined) {
        reason = 'entry_gone';
        continue;
      }
      const cached = entry.question ?? '';
      // Beside the verifier, both read the question with its spellings, typos, abbreviations and
      // synonyms written as the cached one writes them (wording.ts).
      const asked =
        this.#options.verifier === undefined ? plan.question : alignWording(cached, plan.question);
      const verdict = this.#options.guard ? this.#guard(asked, cached) : PASSED;
      if (!verdict.ok) {
        reason = 'guard';
        continue;
      }
      // One verification per lookup: the first candidate that got this far is served or nothing is.
      // A pair only the rules the verifier overrules refused needs a higher score, and its changed
      // words read alone must not be two different things. The same words in the same order need
      // no model.
      const refused = sameWording(cached, asked)
        ? undefined
        : await this.#verify(cached, asked, verdict.overruled !== undefined, requestTrace);
      if (refused !== undefined) {
        reason = refused;
        break;
      }
      metrics.hits.inc({ route: routeLabel });
      return { entry, similarity: Math.min(1, candidate.similarity), id: candidate.id };
    }
    metrics.misses.inc({ reason });
    return undefined;
  }

  /** Adds the answer at `location` to its bucket, for `freshMs` (what it may be served for). Never throws. */
  async remember(location: CacheLocation, plan: SemanticPlan, freshMs: number): Promise<void> {
    const { cache, runtime, embedder } = this.#options;
    const vector = plan.vector ?? (await this.#embed(plan));
    if (vector === undefined || freshMs < 1) return;
    try {
      const key = await cache.semanticBucketKey(location, plan.bucket, embedder.dimensions);
      await bounded(
        runtime.addSemanticCandidate(
          key,
          { id: location.hash, expiresAtMs: Date.now() + freshMs, vector: quantise(vector) },
          this.#options.maxBucket,
          freshMs,
        ),
        this.#options.storeTimeoutMs,
        'semantic write',
      );
      this.#options.metrics.writes.inc();
    } catch (error) {
      this.#warn(error, 'semantic index write failed');
      this.#options.metrics.misses.inc({ reason: 'store_failed' });
    }
  }

  /** Counts a semantic-mode request that used exact matching only, and why. */
  countSkipped(reason: string): void {
    this.#options.metrics.misses.inc({ reason });
  }

  async close(): Promise<void> {
    await Promise.all([this.#options.embedder.close(), this.#options.verifier?.close()]);
  }

  #warn(error: unknown, message: string): void {
    const nowMs = Date.now();
    if (nowMs - this.#warnedAt < WARN_INTERVAL_MS) return;
    this.#warnedAt = nowMs;
    this.#options.log.warn({ err: error }, message);
  }

  /** The hit guard's verdict: every rule, or beside the verifier in `lean` mode VERIFIER_GUARD's. */
  #guard(question: string, candidate: string): GuardVerdict {
    if (this.#options.verifier === undefined || this.#options.verifierRules === 'all') {
      return checkHitGuard(question, candidate);
    }
    return checkHitGuard(question, candidate, VERIFIER_GUARD);
  }

  /**
   * Undefined when the verifier lets the candidate answer the question, else the miss's reason:
   * `verifier` (it scored the pair below VERIFIER_MIN_SCORE, or below VERIFIER_WORDS_OVERRULE's
   * score when a rule it overrules refused the pair), `verifier_words` (the changed words were read
   * alone and scored below what the pair's score needs, `overrules`, or below what one word and its
   * synonym need, `synonymWordsNeed`), `verifier_loading` (its model
   * is loading), `verify_failed` (no answer within the timeout, or an error). Never throws.
   */
  async #verify(
    cached: string,
    asked: string,
    overruled: boolean,
    requestTrace: RequestTrace | undefined,
  ): Promise<string | undefined> {
    const { verifier, metrics } = this.#options;
    if (verifier === undefined) return undefined;
    const started = performance.now();
    try {
      const reason = await traced(requestTrace, 'gateway.cache.verify', () =>
        bounded(
          this.#decide(verifier, cached, asked, overruled),
          this.#options.verifyTimeoutMs ?? 250,
          'verification',
        ),
      );
      metrics.verifySeconds.observe((performance.now() - started) / 1000);
      return reason;
    } catch (error) {
      if (verifier.warming === true) return 'verifier_loading';
      this.#warn(error, 'pair verification failed: the candidate is not served');
      return 'verify_failed';
    }
  }

  /** The verifier's decision on one pair (#verify bounds its time). */
  async #decide(
    verifier: PairVerifier,
    cached: string,
    asked: string,
    overruled: boolean,
  ): Promise<string | undefined> {
    // The verifier reads what the two do not share word for word at the front.
    const score = await verifier.score(...withoutSharedContext(cached, asked));
    if (!overruled && score >= VERIFIER_MIN_SCORE) return undefined;
    let words: number | undefined;
    if (overruled && score >= VERIFIER_WORDS_OVERRULE.score) {
      words = await changedWordsScore(verifier, cached, asked);
      if (overrules(score, words)) return undefined;
    }
    // One word for its listed synonym, the two words read alone as the same (RULE86, RULE118); a
    // phrase WordNet lists for the other side, whatever they read alone (RULE125).
    const need = synonymWordsNeed(cached, asked);
    if (need !== undefined) {
      if (need <= 0) return undefined;
      words ??= await changedWordsScore(verifier, cached, asked);
      if (words >= need) return undefined;
    }
    return words === undefined ? 'verifier' : 'verifier_words';
  }

  async #embed(plan: SemanticPlan): Promise<Float32Array | undefined> {
    if (plan.vector !== undefined) return plan.vector;
    this.#options.verifier?.warm?.();
    await this.#wordList();
    const started = performance.now();
    try {
      plan.vector = await bounded(
        this.#options.embedder.embed(plan.question),
        this.#options.embedTimeoutMs,
        'embedding',
      );
      this.#options.metrics.embedSeconds.observe((performance.now() - started) / 1000);
      return plan.vector;
    } catch (error) {
      // The model still loading (its first use, or after it was let go for idleness) is expected.
      if (this.#options.embedder.warming === true) {
        this.#options.metrics.misses.inc({ reason: 'embedder_loading' });
        return undefined;
      }
      this.#warn(error, 'embedding failed: falling back to exact matching');
      this.#options.metrics.misses.inc({ reason: 'embed_failed' });
      return undefined;
    }
  }
}
