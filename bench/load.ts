/**
 * A closed-loop load generator on an undici Pool's raw dispatch API (no body streams, no promises
 * per request): `concurrency` workers each send a request, wait for the whole response, record its
 * latency with process.hrtime.bigint() (nanoseconds), and send the next one until the deadline.
 */
import type { Dispatcher } from 'undici';

export interface LoadRequest {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  /** Streamed (SSE) responses must end with `data: [DONE]`. */
  stream: boolean;
  /** A new body for every request instead of `body` (e.g. unique bodies: every one a cache miss). */
  nextBody?: () => Buffer;
  /**
   * A response counts only if this header has this value (`undefined`: absent), e.g.
   * `x-service-cache: hit`; otherwise it is a failure that names the value found.
   */
  expectHeader?: { name: string; value: string | undefined };
}

export interface LoadSamples {
  /** Whole-response latencies in ms (request sent to the last body byte), successes only. */
  totalMs: Float64Array;
  /** Time to the first body chunk in ms, successes only. */
  firstByteMs: Float64Array;
  ok: number;
  failures: number;
  /** First few failure descriptions, for the report. */
  failureExamples: string[];
  elapsedMs: number;
  bytes: number;
}

const DONE_TAIL = Buffer.from('data: [DONE]\n\n');

class SampleBuffer {
  data = new Float64Array(16_384);
  length = 0;
  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }
  toArray(): Float64Array {
    return this.data.slice(0, this.length);
  }
}

/** Runs `concurrency` closed-loop workers against `dispatcher` for `durationMs`. */
export function closedLoop(
  dispatcher: Dispatcher,
  request: LoadRequest,
  concurrency: number,
  durationMs: number,
): Promise<LoadSamples> {
  const total = new SampleBuffer();
  const firstByte = new SampleBuffer();
  const failureExamples: string[] = [];
  let ok = 0;
  let failures = 0;
  let bytes = 0;
  const options: Dispatcher.DispatchOptions = {
    path: request.path,
    method: 'POST',
    headers: request.headers,
    body: request.body,
  };
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(durationMs * 1e6));

  const fail = (reason: string) => {
    failures++;
    if (failureExamples.length < 5) failureExamples.push(reason);
  };

  return new Promise((resolve) => {
    let running = concurrency;
    const finishWorker = () => {
      running--;
      if (running > 0) return;
      resolve({
        totalMs: total.toArray(),
        firstByteMs: firstByte.toArray(),
        ok,
        failures,
        failureExamples,
        elapsedMs: Number(process.hrtime.bigint() - started) / 1e6,
        bytes,
      });
    };

    const fire = () => {
      const sentAt = process.hrtime.bigint();
      if (sentAt >= deadline) {
        finishWorker();
        return;
      }
      let status = 0;
      let firstAt = 0n;
      let received = 0;
      let tail: Buffer = Buffer.alloc(0);
      let unexpected: string | undefined;
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart() {},
        onResponseStart(_controller, statusCode, headers) {
          status = statusCode;
          const expect = request.expectHeader;
          if (expect !== undefined && headers[expect.name] !== expect.value)
            unexpected = `${expect.name}: ${String(headers[expect.name])}`;
        },
        onResponseData(_controller, chunk) {
          if (firstAt === 0n) firstAt = process.hrtime.bigint();
          received += chunk.length;
          if (request.stream) {
            tail =
              chunk.length >= DONE_TAIL.length
                ? chunk.subarray(chunk.length - DONE_TAIL.length)
                : Buffer.concat([tail, chunk]).subarray(-DONE_TAIL.length);
          }
        },
        onResponseEnd() {
          const endAt = process.hrtime.bigint();
          bytes += received;
          if (status !== 200) fail(`status ${status}`);
          else if (received === 0) fail('empty body');
          else if (request.stream && !tail.equals(DONE_TAIL)) fail('stream did not end with [DONE]');
          else if (unexpected !== undefined) fail(unexpected);
          else {
            ok++;
            total.push(Number(endAt - sentAt) / 1e6);
            firstByte.push(Number(firstAt - sentAt) / 1e6);
          }
          // A new tick keeps deep recursion out of undici's callback.
          setImmediate(fire);
        },
        onResponseError(_controller, error) {
          fail(error.message);
          setImmediate(fire);
        },
      };
      dispatcher.dispatch(
        request.nextBody === undefined ? options : { ...options, body: request.nextBody() },
        handler,
      );
    };

    for (let worker = 0; worker < concurrency; worker++) fire();
  });
}

export interface Summary {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

/** Nearest-rank percentiles of ms samples. */
export function summarise(samples: Float64Array): Summary {
  const sorted = Float64Array.from(samples).sort();
  const count = sorted.length;
  const at = (p: number) => (count === 0 ? Number.NaN : sorted[Math.max(0, Math.ceil(p * count) - 1)]!);
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    count,
    mean: count === 0 ? Number.NaN : sum / count,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    p999: at(0.999),
    max: count === 0 ? Number.NaN : sorted[count - 1]!,
  };
}

export function concatSamples(parts: Float64Array[]): Float64Array {
  const out = new Float64Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
