/**
 * HTTP to the Kubernetes API server: one KubeConfig (kubeconfig file, KUBECONFIG or in-cluster, as
 * @kubernetes/client-node loads it) for the server address and the credentials, and one pooled
 * undici dispatcher for every request and watch.
 *
 * Why not client-node's generated clients and Watch: in 2.0.1 every request builds a new undici
 * Agent (KubeConfig.createDispatcher, so a new TLS connection per call and per watch reconnect),
 * and Watch aborts any watch that is quiet for 30 s. Credentials still come from the KubeConfig on
 * every request (applyToHTTPSOptions), so rotated service-account tokens and exec plugins work.
 *
 * HTTP/1.1 only (`allowH2: false`; undici 8 offers h2 by default and the API server takes it):
 * destroying an HTTP/2 session destroys its streams with the agent's error, and CI saw one of
 * those escape as an uncaught ClientDestroyedError when an operator stopped. An operator keeps
 * one connection per watch this way, a handful in all, as kubectl and client-go with
 * DISABLE_HTTP2 do.
 */
import { createHash } from 'node:crypto';
import type { RequestOptions } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { Agent, type Dispatcher, fetch, ProxyAgent } from 'undici';

export type { KubeConfig };

/** A kubeconfig file, or else the default: KUBECONFIG, ~/.kube/config, or the in-cluster service account. */
export function loadKubeConfig(path?: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  if (path) kubeConfig.loadFromFile(path);
  else kubeConfig.loadFromDefault();
  return kubeConfig;
}

/** A `metav1.Status` as the API server returns it for errors. */
export interface KubeStatus {
  kind?: 'Status';
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    kind?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
  };
}

/** A request the API server refused (status >= 400), or a watch ERROR event. */
export class KubeApiError extends Error {
  readonly statusCode: number;
  readonly reason: string | undefined;
  readonly status: KubeStatus | undefined;

  constructor(statusCode: number, message: string, status?: KubeStatus) {
    super(message);
    this.name = 'KubeApiError';
    this.statusCode = statusCode;
    this.reason = status?.reason;
    this.status = status;
  }
}

export function isKubeStatus(error: unknown, statusCode: number): boolean {
  return error instanceof KubeApiError && error.statusCode === statusCode;
}

export type QueryValue = string | number | boolean | undefined;

export interface KubeRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Default application/json when there is a body. */
  contentType?: string;
  /** Default application/json; e.g. a metadata-only list (PartialObjectMetadataList). */
  accept?: string;
  /** Overrides the transport's default request timeout. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export const CONTENT_TYPE_APPLY = 'application/apply-patch+yaml';
export const CONTENT_TYPE_MERGE_PATCH = 'application/merge-patch+json';

export interface KubeTransportOptions {
  /** Bound on one request's round trip (not on watches); default 30 s. */
  requestTimeoutMs?: number;
  /** User-Agent, which the API server also shows as the manager of non-apply writes. */
  userAgent?: string;
}

interface Credentials {
  headers: Record<string, string>;
  dispatcher: Dispatcher;
}

function tlsFingerprint(parts: unknown[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part === undefined ? '\u0000' : String(part)).update('\u0001');
  return hash.digest('hex');
}

async function readStatus(response: Awaited<ReturnType<typeof fetch>>): Promise<KubeApiError> {
  const text = await response.text().catch(() => '');
  let status: KubeStatus | undefined;
  try {
    status = JSON.parse(text) as KubeStatus;
  } catch {
    status = undefined;
  }
  const message = status?.message ?? (text.slice(0, 500) || `HTTP ${response.status}`);
  return new KubeApiError(response.status, message, status);
}

/** How long close lets aborted requests and watches settle before it destroys the agent. */
const CLOSE_GRACE_MS = 2_000;

/** Resolves when every promise has settled, or after `ms`, whichever is first. */
async function settledWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  if (promises.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([Promise.allSettled(promises), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export class KubeTransport {
  readonly #kubeConfig: KubeConfig;
  readonly #requestTimeoutMs: number;
  readonly #userAgent: string;
  #dispatcher: Dispatcher | undefined;
  #dispatcherKey = '';
  #closed = false;
  /** Aborts every request still in flight when the transport closes (close). */
  readonly #closing = new AbortController();
  /** Each request and watch until it has settled, so that close can let them finish before the agent goes. */
  readonly #inFlight = new Set<Promise<void>>();

  constructor(kubeConfig: KubeConfig, options: KubeTransportOptions = {}) {
    this.#kubeConfig = kubeConfig;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.#userAgent = options.userAgent ?? 'inference-gateway';
    if (!kubeConfig.getCurrentCluster()) throw new Error('the kubeconfig has no current cluster');
  }

  get server(): string {
    return (this.#kubeConfig.getCurrentCluster()?.server ?? '').replace(/\/+$/, '');
  }

  /** Sends the request and parses the JSON answer; throws KubeApiError for a status >= 400. */
  request<T>(request: KubeRequest): Promise<T> {
    return this.#track(async () => {
      const response = await this.#send(request, false);
      if (!response.ok) throw await readStatus(response);
      const text = await response.text();
      return (text === '' ? undefined : JSON.parse(text)) as T;
    });
  }

  /** Like request, but a 404 is `undefined`. */
  async requestOptional<T>(request: KubeRequest): Promise<T | undefined> {
    try {
      return await this.request<T>(request);
    } catch (error) {
      if (isKubeStatus(error, 404)) return undefined;
      throw error;
    }
  }

  /**
   * Streams a watch: calls `onLine` for every line of the body and `onData` for every chunk
   * (liveness for a watchdog). Resolves when the server ends the stream; rejects on abort, on a
   * transport error, or with KubeApiError when the server refuses the watch.
   */
  stream(
    path: string,
    query: Record<string, QueryValue>,
    signal: AbortSignal,
    onLine: (line: string) => void,
    onData: () => void,
  ): Promise<void> {
    return this.#track(async () => {
      const response = await this.#send({ method: 'GET', path, query, signal }, true);
      if (!response.ok) throw await readStatus(response);
      if (!response.body) return;
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of response.body) {
        onData();
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
          const line = buffer.slice(0, end).trim();
          buffer = buffer.slice(end + 1);
          if (line !== '') onLine(line);
        }
      }
      if (buffer.trim() !== '') onLine(buffer.trim());
    });
  }

  /**
   * Aborts every request and watch in flight, lets them settle (each caller's promise rejects
   * through its own signal), then destroys the agent. The wait is bounded: a caller stuck in its
   * own onLine does not hold close.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#closing.abort(new Error('the Kubernetes transport is closed'));
    await settledWithin([...this.#inFlight], CLOSE_GRACE_MS);
    const dispatcher = this.#dispatcher;
    this.#dispatcher = undefined;
    // destroy, not close: a watch that outlived the grace would otherwise hold close() until the
    // server ends it.
    await dispatcher?.destroy().catch(() => {});
  }

  /** Runs `work`, counted in flight (for close) until it settles. */
  #track<T>(run: () => Promise<T>): Promise<T> {
    const work = run();
    const settled = work.then(
      () => {},
      () => {},
    );
    this.#inFlight.add(settled);
    void settled.then(() => this.#inFlight.delete(settled));
    return work;
  }

  async #send(request: KubeRequest, streaming: boolean): Promise<Awaited<ReturnType<typeof fetch>>> {
    if (this.#closed) throw new Error('the Kubernetes transport is closed');
    const credentials = await this.#credentials();
    // close() may have run while the credentials were read (an exec plugin can take seconds).
    if (this.#closed) throw new Error('the Kubernetes transport is closed');
    const url = new URL(`${this.server}${request.path}`);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {
      accept: request.accept ?? 'application/json',
      'user-agent': this.#userAgent,
      ...credentials.headers,
    };
    let body: string | undefined;
    if (request.body !== undefined) {
      headers['content-type'] = request.contentType ?? 'application/json';
      body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    }
    const signals: AbortSignal[] = [this.#closing.signal];
    if (request.signal) signals.push(request.signal);
    if (!streaming) signals.push(AbortSignal.timeout(request.timeoutMs ?? this.#requestTimeoutMs));
    return fetch(url, {
      method: request.method,
      headers,
      body,
      dispatcher: credentials.dispatcher,
      signal: AbortSignal.any(signals),
    });
  }

  /** Fresh credentials from the KubeConfig; the dispatcher is rebuilt only when the TLS material changes. */
  async #credentials(): Promise<Credentials> {
    const options: RequestOptions = {};
    await this.#kubeConfig.applyToHTTPSOptions(options);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      if (value !== undefined) headers[name.toLowerCase()] = String(value);
    }
    if (options.auth) headers.authorization = `Basic ${Buffer.from(options.auth).toString('base64')}`;
    const cluster = this.#kubeConfig.getCurrentCluster();
    const tls = {
      ca: options.ca,
      cert: options.cert,
      key: options.key,
      pfx: options.pfx,
      passphrase: options.passphrase,
      rejectUnauthorized: options.rejectUnauthorized,
      servername: options.servername,
    };
    const key = tlsFingerprint([cluster?.proxyUrl, ...Object.values(tls)]);
    if (this.#dispatcher === undefined || key !== this.#dispatcherKey) {
      const previous = this.#dispatcher;
      const connect = Object.fromEntries(Object.entries(tls).filter(([, value]) => value !== undefined));
      this.#dispatcher = cluster?.proxyUrl
        ? new ProxyAgent({ uri: cluster.proxyUrl, requestTls: connect, allowH2: false })
        : new Agent({
            allowH2: false,
            connect: { ...connect, keepAlive: true, keepAliveInitialDelay: 30_000 },
          });
      this.#dispatcherKey = key;
      // Requests still running on the old one finish; it closes after them.
      void previous?.close().catch(() => {});
    }
    return { headers, dispatcher: this.#dispatcher };
  }
}
