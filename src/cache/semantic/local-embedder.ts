/**
 * The default embedder: all-MiniLM-L6-v2 (384 dimensions), run in-process with no network, in a
 * worker thread (embedding-worker.ts) so that the gateway's event loop never waits on the model.
 * Questions asked while the model is busy are embedded together in the next batch.
 */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Embedder } from './embedder.ts';
import type { EmbeddingWorkerData, EmbeddingWorkerReply } from './embedding-worker.ts';

/** The files a model folder must hold (scripts/fetch-semcache-model.sh puts them there). */
export const MODEL_FILES = ['model.onnx', 'tokenizer.json', 'tokenizer_config.json'] as const;

/**
 * The same model with integer matrix products, which scripts/fetch-semcache-model.sh derives from
 * model.onnx when it can (ONNX Runtime's dynamic quantisation, per channel): about 2.4 times faster
 * on one core, paraphrase hits at 0.8 a point or three lower (bench/README.md, Semantic cache).
 * Used when the folder holds it, unless GATEWAY_SEMCACHE_QUANTIZED=off.
 */
export const QUANTIZED_MODEL_FILE = 'model-int8-dynamic.onnx';

/** The model file a folder's embedder loads: the quantised one when asked for and present. */
export function localModelFile(modelDir: string, quantized: boolean): string {
  const derived = join(modelDir, QUANTIZED_MODEL_FILE);
  return quantized && existsSync(derived) ? derived : join(modelDir, 'model.onnx');
}

export interface LocalEmbedderOptions {
  modelDir: string;
  /** Load model-int8-dynamic.onnx when the folder holds it (GATEWAY_SEMCACHE_QUANTIZED); default true. */
  quantized?: boolean;
  /** ONNX Runtime's threads for one batch (GATEWAY_SEMCACHE_THREADS); default 1. */
  threads?: number;
  /**
   * Texts embedded in one run at most; default 16 for model.onnx, 1 for the quantised file: its
   * activations are quantised with one scale per run, so a text's vector would depend on the texts
   * batched with it (and batching it gains nothing: 237 texts/s batched, 244 one at a time).
   */
  maxBatch?: number;
  /** How long the model may take to load; default 60 s. */
  startTimeoutMs?: number;
}

/** Which of the model's files the folder lacks (empty: complete). */
export function missingModelFiles(modelDir: string): string[] {
  return MODEL_FILES.filter((name) => !existsSync(join(modelDir, name)));
}

export class LocalEmbedder implements Embedder {
  readonly name = 'all-MiniLM-L6-v2 (local)';
  readonly dimensions: number;
  /** The ONNX file it runs. */
  readonly modelFile: string;
  readonly #worker: Worker;
  readonly #pending = new Map<
    number,
    { resolve: (vector: Float32Array) => void; reject: (error: Error) => void }
  >();
  #nextId = 0;
  #broken: Error | undefined;

  private constructor(worker: Worker, dimensions: number, modelFile: string) {
    this.#worker = worker;
    this.dimensions = dimensions;
    this.modelFile = modelFile;
    worker.on('message', (reply: EmbeddingWorkerReply) => this.#answer(reply));
    worker.on('error', (error) => this.#fail(error));
    worker.on('exit', (code) => this.#fail(new Error(`the embedding worker exited (code ${code})`)));
  }

  /** Loads the model in a worker; rejects when it cannot (missing files, a corrupt model). */
  static async start(options: LocalEmbedderOptions): Promise<LocalEmbedder> {
    const missing = missingModelFiles(options.modelDir);
    if (missing.length > 0) throw new Error(`${options.modelDir} lacks ${missing.join(', ')}`);
    const modelFile = localModelFile(options.modelDir, options.quantized ?? true);
    const workerData: EmbeddingWorkerData = {
      modelDir: options.modelDir,
      modelFile,
      threads: options.threads ?? 1,
      maxTokens: 256,
      maxBatch: options.maxBatch ?? (basename(modelFile) === QUANTIZED_MODEL_FILE ? 1 : 16),
    };
    // No inherited --import preloads: a process's own hooks (a test's stdin guard, a profiler) are
    // not the model thread's.
    const worker = new Worker(new URL('./embedding-worker.ts', import.meta.url), {
      workerData,
      execArgv: [],
    });
    try {
      const dimensions = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error('the embedding model did not load in time')),
          options.startTimeoutMs ?? 60_000,
        );
        worker.once('message', (reply: EmbeddingWorkerReply) => {
          clearTimeout(timer);
          if (reply.type === 'ready') resolve(reply.dimensions);
          else reject(new Error(reply.type === 'fatal' ? reply.message : 'unexpected first message'));
        });
        worker.once('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
      });
      return new LocalEmbedder(worker, dimensions, workerData.modelFile);
    } catch (error) {
      await worker.terminate();
      throw error;
    }
  }

  embed(text: string): Promise<Float32Array> {
    if (this.#broken !== undefined) return Promise.reject(this.#broken);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, text });
    });
  }

  async close(): Promise<void> {
    this.#broken ??= new Error('the embedder is closed');
    await this.#worker.terminate();
  }

  #answer(reply: EmbeddingWorkerReply): void {
    if (reply.type !== 'vector' && reply.type !== 'failed') return;
    const pending = this.#pending.get(reply.id);
    if (pending === undefined) return;
    this.#pending.delete(reply.id);
    if (reply.type === 'vector') pending.resolve(reply.vector);
    else pending.reject(new Error(`embedding failed: ${reply.message}`));
  }

  #fail(error: Error): void {
    this.#broken ??= error;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }
}
