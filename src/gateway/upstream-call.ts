/**
 * Calling the upstream (DESIGN section 5, step 7): the plan's payload to the route's URL with its
 * headers, signed right before sending when the route signs (SigV4, Google tokens); a refused
 * short-lived credential retried once with a fresh one; an error answer read (its first 64 KiB) and
 * mapped by the plan; and the sender of plans that take several calls. Failures are counted and
 * logged here. Every answer read whole is bounded, so that no upstream can make one request hold an
 * unbounded amount of the gateway's memory.
 */
import { UpstreamError, UpstreamTimeoutError } from '../errors/gateway-error.ts';
import type { Logger } from '../observability/logger.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';
import type { ResolvedRoute } from '../providers/types.ts';
import type { SendUpstreamCall, UpstreamPlan } from '../translate/types.ts';
import {
  classifyBodyReadError,
  UpstreamAbortedError,
  type UpstreamClient,
  type UpstreamResponse,
} from '../upstream/upstream-client.ts';

export interface UpstreamCallDeps {
  upstream: UpstreamClient;
  metrics: GatewayMetrics;
  log: Logger;
}

/** Counts and logs a failure to get an answer (not a client abort). */
function countFailure(deps: UpstreamCallDeps, provider: string, error: unknown): void {
  if (error instanceof UpstreamAbortedError) return;
  const kind = error instanceof UpstreamTimeoutError ? 'timeout' : 'unreachable';
  deps.metrics.upstreamErrors.inc({ provider, kind });
  deps.log.warn({ provider, err: error }, 'upstream request failed');
}

function send(
  deps: UpstreamCallDeps,
  route: ResolvedRoute,
  url: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
): Promise<UpstreamResponse> {
  const provider = route.provider.name;
  const failed = (error: unknown): never => {
    countFailure(deps, provider, error);
    throw error;
  };
  // No async function: one promise per call rather than one per await.
  try {
    if (route.sign === undefined)
      return deps.upstream.send({ provider, url, headers, body, signal }).then(undefined, failed);
    return route
      .sign({ method: 'POST', url, headers, body })
      .then((signed) => deps.upstream.send({ provider, url, headers: signed, body, signal }))
      .then(undefined, failed);
  } catch (error) {
    return Promise.reject(error).then(undefined, failed);
  }
}

/** Error answers are read up to this much: their message is all the gateway uses of them. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** A whole (not streamed) answer larger than this is refused: 502, the upstream's failure. */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** 502: the upstream's answer was larger than the gateway reads whole. */
class AnswerTooLargeError extends UpstreamError {
  constructor(provider: string, maxBytes: number) {
    super(
      502,
      200,
      `the answer of provider '${provider}' is larger than ${maxBytes} bytes`,
      'api_error',
      false,
    );
  }
}

/**
 * The body's text, at most `maxBytes` of it: beyond, the rest is not read (the connection is
 * dropped) and the text is cut there (`truncate`) or the read fails.
 */
function readBounded(
  response: UpstreamResponse,
  maxBytes: number,
  onOverflow: 'truncate' | 'fail',
  provider: string,
): Promise<string> {
  const declared = Number(response.headers['content-length']);
  // The common case: a declared length within the bound, read by undici in one go.
  if (Number.isFinite(declared) && declared <= maxBytes) return response.body.text();
  return readChunks(response, maxBytes, onOverflow, provider);
}

async function readChunks(
  response: UpstreamResponse,
  maxBytes: number,
  onOverflow: 'truncate' | 'fail',
  provider: string,
): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    if (total + chunk.length > maxBytes) {
      response.body.destroy();
      if (onOverflow === 'fail') throw new AnswerTooLargeError(provider, maxBytes);
      chunks.push(chunk.subarray(0, maxBytes - total));
      total = maxBytes;
      break;
    }
    chunks.push(chunk);
    total += chunk.length;
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

/**
 * Reads a whole answer (at most MAX_ANSWER_BYTES; an error answer's first MAX_ERROR_BODY_BYTES);
 * a reset or a stall midway is the upstream's failure (502/504), counted.
 */
export function readAnswerText(
  deps: UpstreamCallDeps,
  provider: string,
  response: UpstreamResponse,
  signal: AbortSignal,
): Promise<string> {
  const failed = (error: unknown): never => {
    if (error instanceof AnswerTooLargeError) {
      deps.metrics.upstreamErrors.inc({ provider, kind: 'too_large' });
      throw error;
    }
    const failure = classifyBodyReadError(provider, error, signal);
    countFailure(deps, provider, failure);
    throw failure;
  };
  try {
    const reading =
      response.statusCode >= 400
        ? readBounded(response, MAX_ERROR_BODY_BYTES, 'truncate', provider)
        : readBounded(response, MAX_ANSWER_BYTES, 'fail', provider);
    return reading.then(undefined, failed);
  } catch (error) {
    return Promise.reject(error).then(undefined, failed);
  }
}

function flattenHeaders(headers: UpstreamResponse['headers']): Record<string, string | undefined> {
  const flat: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers))
    flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}

/**
 * Sends the plan's request and returns the upstream's answer when it succeeded (2xx or 3xx); an
 * error answer is read and thrown as the plan maps it.
 */
export function callUpstream(
  deps: UpstreamCallDeps,
  route: ResolvedRoute,
  plan: UpstreamPlan,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<UpstreamResponse> {
  const url = route.baseUrl + plan.path;
  return send(deps, route, url, headers, plan.payload, signal).then((response) =>
    // A refused short-lived credential (a Vertex access token revoked or expired early): drop it
    // and try once more with a fresh one.
    response.statusCode === 401 && route.onUnauthorized !== undefined
      ? retryUnauthorized(deps, route, plan, url, headers, signal, response)
      : succeeded(deps, route, plan, response, signal),
  );
}

async function retryUnauthorized(
  deps: UpstreamCallDeps,
  route: ResolvedRoute,
  plan: UpstreamPlan,
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  refused: UpstreamResponse,
): Promise<UpstreamResponse> {
  await refused.body.dump();
  route.onUnauthorized?.();
  deps.metrics.upstreamErrors.inc({ provider: route.provider.name, kind: 'status_401_retried' });
  const response = await send(deps, route, url, headers, plan.payload, signal);
  return succeeded(deps, route, plan, response, signal);
}

/** The answer when it succeeded; an error answer read and thrown as the plan maps it. */
function succeeded(
  deps: UpstreamCallDeps,
  route: ResolvedRoute,
  plan: UpstreamPlan,
  response: UpstreamResponse,
  signal: AbortSignal,
): UpstreamResponse | Promise<never> {
  if (response.statusCode < 400) return response;
  const provider = route.provider.name;
  return readAnswerText(deps, provider, response, signal).then((body) => {
    deps.metrics.upstreamErrors.inc({ provider, kind: `status_${response.statusCode}` });
    throw plan.error({
      provider,
      status: response.statusCode,
      body,
      headers: flattenHeaders(response.headers),
    });
  });
}

/** The sender of a plan that takes several calls: each to the route's base URL, signed like one. */
export function createCallSender(
  deps: UpstreamCallDeps,
  route: ResolvedRoute,
  headers: Record<string, string>,
  signal: AbortSignal,
): SendUpstreamCall {
  const provider = route.provider.name;
  return async (call) => {
    const body = JSON.stringify(call.body);
    const response = await send(deps, route, route.baseUrl + call.path, headers, body, signal);
    const text = await readAnswerText(deps, provider, response, signal);
    if (response.statusCode >= 400)
      deps.metrics.upstreamErrors.inc({ provider, kind: `status_${response.statusCode}` });
    return { statusCode: response.statusCode, headers: flattenHeaders(response.headers), text };
  };
}
