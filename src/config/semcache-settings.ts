/**
 * Settings of the semantic cache (GATEWAY_SEMCACHE_*). Part of Settings (settings.ts).
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export interface SemanticCacheSettings {
  /** GATEWAY_SEMCACHE (default on): off skips embedding, and semantic mode is exact matching. */
  enabled: boolean;
  /**
   * The folder holding model.onnx, tokenizer.json and tokenizer_config.json
   * (GATEWAY_SEMCACHE_MODEL_DIR; default where scripts/fetch-semcache-model.sh caches them).
   */
  modelDir: string;
  /**
   * Run model-int8-dynamic.onnx (integer matrix products) when the model folder holds it
   * (GATEWAY_SEMCACHE_QUANTIZED, default on); off: always model.onnx.
   */
  quantized: boolean;
  /** An embeddings route (`openai/text-embedding-3-small`) used instead of the local model (GATEWAY_SEMCACHE_EMBEDDINGS). */
  embeddingsModel: string | undefined;
  /** ONNX Runtime threads of the local model (GATEWAY_SEMCACHE_THREADS, default 1). */
  threads: number;
  /** The similarity a request that names none needs (GATEWAY_SEMCACHE_THRESHOLD, default 0.8). */
  threshold: number;
  /** The most candidates one lookup scans (GATEWAY_SEMCACHE_MAX_DEPTH, default 2000). */
  maxDepth: number;
  /** Candidates kept per bucket (GATEWAY_SEMCACHE_MAX_BUCKET, default 10000). */
  maxBucket: number;
  /** A scan slower than this shrinks the depth (GATEWAY_SEMCACHE_SCAN_BUDGET_MS, default 5). */
  scanBudgetMs: number;
  /** The hit guard (GATEWAY_SEMCACHE_GUARD, default on). */
  guard: boolean;
  /** Bound on embedding one question, queueing included (GATEWAY_SEMCACHE_EMBED_TIMEOUT_MS, default 1000). */
  embedTimeoutMs: number;
  /**
   * The pair verifier scores the candidate a lookup would serve (GATEWAY_SEMCACHE_VERIFIER, default
   * on); off: the similarity and the hit guard alone decide.
   */
  verifier: boolean;
  /**
   * Which of the hit guard's rules run beside the verifier (GATEWAY_SEMCACHE_VERIFIER_RULES):
   * `lean` (the default: three rules refuse, the substitution rule only asks the verifier for a
   * higher score) or `all` (every rule refuses, then the verifier must pass the candidate: fewer
   * near misses served, and fewer paraphrases; bench/README.md).
   */
  verifierRules: 'all' | 'lean';
  /** Its model's folder (GATEWAY_SEMCACHE_VERIFIER_DIR; default models/pair-verifier of the install). */
  verifierDir: string | undefined;
  /** Bound on one verification, queueing included; slower is a miss (GATEWAY_SEMCACHE_VERIFY_TIMEOUT_MS, default 250). */
  verifyTimeoutMs: number;
  /**
   * The local model is loaded at its first use and let go after this long unused
   * (GATEWAY_SEMCACHE_MODEL_IDLE_MS, default 900000; 0 keeps it once loaded).
   */
  modelIdleMs: number;
  /**
   * Bytes of semantic buckets a process on Redis keeps a copy of, so that a lookup reads only the
   * candidates written since (GATEWAY_SEMCACHE_MIRROR_BYTES, default 64 MiB; 0 keeps none).
   */
  mirrorBytes: number;
}

type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULT_SEMCACHE_MODEL_DIR = join(homedir(), '.cache/gateway-semcache/all-minilm-l6-v2-int8-v1');

export function readSemanticCacheSettings(
  env: Env,
  cwd: string,
  fail: (message: string) => never,
  readBool: (name: string, fallback: boolean) => boolean,
  readInt: (name: string, fallback: number, min: number, max: number) => number,
): SemanticCacheSettings {
  const thresholdRaw = env.GATEWAY_SEMCACHE_THRESHOLD?.trim();
  const threshold = thresholdRaw ? Number(thresholdRaw) : 0.8;
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1) {
    fail(`GATEWAY_SEMCACHE_THRESHOLD must be a number from 0 to 1, got '${thresholdRaw}'`);
  }
  const embeddingsModel = env.GATEWAY_SEMCACHE_EMBEDDINGS?.trim() || undefined;
  if (embeddingsModel !== undefined && !/^[a-z0-9-]+\/\S+$/.test(embeddingsModel)) {
    fail(
      `GATEWAY_SEMCACHE_EMBEDDINGS must name an embeddings route as provider/model, got '${embeddingsModel}'`,
    );
  }
  const modelDir = env.GATEWAY_SEMCACHE_MODEL_DIR?.trim();
  const verifierDir = env.GATEWAY_SEMCACHE_VERIFIER_DIR?.trim();
  const verifierRules = env.GATEWAY_SEMCACHE_VERIFIER_RULES?.trim().toLowerCase() || 'lean';
  if (verifierRules !== 'all' && verifierRules !== 'lean') {
    fail(`GATEWAY_SEMCACHE_VERIFIER_RULES must be 'all' or 'lean', got '${verifierRules}'`);
  }
  return Object.freeze({
    enabled: readBool('GATEWAY_SEMCACHE', true),
    modelDir: modelDir ? resolve(cwd, modelDir) : DEFAULT_SEMCACHE_MODEL_DIR,
    quantized: readBool('GATEWAY_SEMCACHE_QUANTIZED', true),
    embeddingsModel,
    threads: readInt('GATEWAY_SEMCACHE_THREADS', 1, 1, 64),
    threshold,
    maxDepth: readInt('GATEWAY_SEMCACHE_MAX_DEPTH', 2000, 10, 100_000),
    maxBucket: readInt('GATEWAY_SEMCACHE_MAX_BUCKET', 10_000, 10, 1_000_000),
    scanBudgetMs: readInt('GATEWAY_SEMCACHE_SCAN_BUDGET_MS', 5, 1, 10_000),
    guard: readBool('GATEWAY_SEMCACHE_GUARD', true),
    embedTimeoutMs: readInt('GATEWAY_SEMCACHE_EMBED_TIMEOUT_MS', 1000, 10, 60_000),
    verifier: readBool('GATEWAY_SEMCACHE_VERIFIER', true),
    verifierRules,
    verifierDir: verifierDir ? resolve(cwd, verifierDir) : undefined,
    verifyTimeoutMs: readInt('GATEWAY_SEMCACHE_VERIFY_TIMEOUT_MS', 250, 5, 60_000),
    modelIdleMs: readInt('GATEWAY_SEMCACHE_MODEL_IDLE_MS', 900_000, 0, 7 * 24 * 3_600_000),
    mirrorBytes: readInt('GATEWAY_SEMCACHE_MIRROR_BYTES', 64 * 1024 * 1024, 0, 64 * 1024 * 1024 * 1024),
  });
}
