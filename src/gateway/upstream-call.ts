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
  type AnswerReading,
  BodyTooLargeError,
  flatHeaders,
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

/**
 * Sends one call, its answer read as `read` says (upstream-client.ts): one read whole is bounded,
 * an answer too large a 502, counted. An error answer always comes read.
 */
function send(
  deps: UpstreamCallDeps,
  route: ResolvedRoute,
  url: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
  read: AnswerReading,
): Promise<UpstreamResponse> {
  const provider = route.provider.name;
  const failed = (error: unknown): never => {
    if (error instanceof BodyTooLargeError) {
      deps.metrics.upstreamErrors.inc({ provider, kind: 'too_large' });
      throw new AnswerTooLargeError(provider, error.maxBytes);
    }
    countFailure(deps, provider, error);
    throw error;
  };
  // No async function: one promise per call rather than one per await.
  try {
    // A model route's attempt: the first byte within its firstByteTimeoutMs.
    const firstByteTimeoutMs = route.firstByteTimeoutMs;
    if (route.sign === undefined)
      return deps.upstream
        .send({ provider, url, headers, body, signal, read, firstByteTimeoutMs })
        .then(undefined, failed);
    return route
      .sign({ method: 'POST', url, headers, body })
      .then((signed) =>
        deps.upstream.send({ provider, url, headers: signed, body, signal, read, firstByteTimeoutMs }),
      )
      .then(undefined, failed);
  } catch (error) {
    return Promise.reject(error).then(undefined, failed);
  }
}

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
 * Sends the plan's request and returns the upstream's answer when it succeeded (2xx or 3xx), read
 * as `read` says; an error answer is thrown as the plan maps it.
 */
export function callUpstream(
  deps: UpstreamCallDeps,
  route: ResolvedRoute,
  plan: UpstreamPlan,
  headers: Record<string, string>,
  signal: AbortSignal,
  read: AnswerReading,
): Promise<UpstreamResponse> {
  const url = route.baseUrl + plan.path;
  const resend = () => send(deps, route, url, headers, plan.payload, signal, read);
  return resend().then((response) => {
    // A refused short-lived credential (a Vertex access token revoked or expired early): drop it
    // and try once more with a fresh one.
    if (response.statusCode !== 401 || route.onUnauthorized === undefined)
      return succeeded(deps, route, plan, response);
    route.onUnauthorized();
    deps.metrics.upstreamErrors.inc({ provider: route.provider.name, kind: 'status_401_retried' });
    return resend().then((again) => succeeded(deps, route, plan, again));
  });
}

/** The answer when it succeeded; an error answer (read already) thrown as the plan maps it. */
function succeeded(
  deps: UpstreamCallDeps,
  route: ResolvedRoute,
  plan: UpstreamPlan,
  response: UpstreamResponse,
): UpstreamResponse {
  if (response.statusCode < 400) return response;
  const provider = route.provider.name;
  deps.metrics.upstreamErrors.inc({ provider, kind: `status_${response.statusCode}` });
  throw plan.error({
    provider,
    status: response.statusCode,
    body: response.text ?? '',
    headers: flatHeaders(response.headers),
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
  return (call) =>
    send(deps, route, route.baseUrl + call.path, headers, JSON.stringify(call.body), signal, 'whole').then(
      (response) => {
        if (response.statusCode >= 400)
          deps.metrics.upstreamErrors.inc({ provider, kind: `status_${response.statusCode}` });
        return {
          statusCode: response.statusCode,
          headers: flatHeaders(response.headers),
          text: response.text ?? '',
        };
      },
    );
}
