/**
 * The local model, loaded when semantic mode is first used rather than at process start, and let
 * go after a while without use. Loaded, the model costs its process about 200 MB (ONNX Runtime's
 * session for a 23 MB file, measured in bench/README.md "Throughput"); a gateway whose tenants
 * never ask for semantic caching should not carry it. The first semantic lookups wait for the load
 * (bounded by the embed timeout, after which they fall back to exact matching, counted as
 * `embedder_loading`, without a warning); a load that fails is retried after `retryAfterMs`.
 */
import type { Embedder } from './embedder.ts';

export interface LazyEmbedderOptions {
  /** Names the model in logs before it is loaded. */
  name: string;
  /** The vectors' length, before the model has said (all-MiniLM-L6-v2: 384); checked at load. */
  dimensions: number;
  load: () => Promise<Embedder>;
  /** Unloads the model after this long without an embed; 0 keeps it. */
  idleMs: number;
  /** After a failed load, how long embeds fail at once before the next try; default 60 s. */
  retryAfterMs?: number;
  /** Told once per load and unload (for the log). */
  onChange?: (event: 'loaded' | 'unloaded' | 'failed', detail?: unknown) => void;
}

export class LazyEmbedder implements Embedder {
  readonly name: string;
  readonly #options: LazyEmbedderOptions;
  #dimensions: number;
  #loading: Promise<Embedder> | undefined;
  #loaded: Embedder | undefined;
  #failedAt = Number.NEGATIVE_INFINITY;
  #failure: Error | undefined;
  #lastUsed = 0;
  #idleTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: LazyEmbedderOptions) {
    this.#options = options;
    this.name = options.name;
    this.#dimensions = options.dimensions;
  }

  get dimensions(): number {
    return this.#dimensions;
  }

  /** Whether the model is being loaded (an embed now waits for it). */
  get warming(): boolean {
    return this.#loading !== undefined && this.#loaded === undefined;
  }

  /** Whether the model is in memory. */
  get loaded(): boolean {
    return this.#loaded !== undefined;
  }

  async embed(text: string): Promise<Float32Array> {
    if (this.#closed) throw new Error('the embedder is closed');
    this.#lastUsed = Date.now();
    const model = this.#loaded ?? (await this.#load());
    return model.embed(text);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#idleTimer);
    const model = this.#loaded ?? (await this.#loading?.catch(() => undefined));
    this.#loaded = undefined;
    await model?.close();
  }

  #load(): Promise<Embedder> {
    if (this.#loading !== undefined) return this.#loading;
    if (Date.now() - this.#failedAt < (this.#options.retryAfterMs ?? 60_000)) {
      return Promise.reject(this.#failure);
    }
    const loading = this.#options.load().then(async (model) => {
      if (model.dimensions !== this.#options.dimensions) {
        await model.close();
        throw new Error(
          `the model's vectors have ${model.dimensions} dimensions, not the ${this.#options.dimensions} expected`,
        );
      }
      if (this.#closed) {
        await model.close();
        throw new Error('the embedder is closed');
      }
      this.#loaded = model;
      this.#dimensions = model.dimensions;
      this.#options.onChange?.('loaded');
      this.#scheduleIdleCheck();
      return model;
    });
    this.#loading = loading;
    loading.catch((error: unknown) => {
      this.#failedAt = Date.now();
      this.#failure = error instanceof Error ? error : new Error(String(error));
      this.#options.onChange?.('failed', error);
    });
    // Whatever the outcome, a later embed starts afresh (from the loaded model or a new load).
    void loading.then(
      () => {
        this.#loading = undefined;
      },
      () => {
        this.#loading = undefined;
      },
    );
    return loading;
  }

  #scheduleIdleCheck(): void {
    const idleMs = this.#options.idleMs;
    if (idleMs <= 0 || this.#closed) return;
    const due = this.#lastUsed + idleMs - Date.now();
    this.#idleTimer = setTimeout(() => void this.#unloadIfIdle(), Math.max(due, 0) + 10);
    this.#idleTimer.unref();
  }

  async #unloadIfIdle(): Promise<void> {
    const model = this.#loaded;
    if (model === undefined || this.#closed) return;
    if (Date.now() - this.#lastUsed < this.#options.idleMs) return this.#scheduleIdleCheck();
    this.#loaded = undefined;
    this.#options.onChange?.('unloaded');
    // Embeds already handed to the model finish; new ones load it again.
    await model.close();
  }
}
