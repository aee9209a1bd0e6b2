/**
 * Calling the upstream (DESIGN section 5, step 7): the plan's payload to the route's URL with its
 * headers, signed right before sending when the route signs (SigV4, Google tokens); a refused
 * short-lived credential retried once with a fresh one; an error answer read whole and mapped by the
 * plan; and the sender of plans that take several calls. Failures are counted and logged here.
 */
import { UpstreamTimeoutError } from '../errors/gateway-error.ts';
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

async function send(
  deps: UpstreamCallDeps,
  route: ResolvedRoute,
  url: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
): Promise<UpstreamResponse> {
  const provider = route.provider.name;
  try {
    const sentHeaders =
      route.sign === undefined ? headers : await route.sign({ method: 'POST', url, headers, body });
    return await deps.upstream.send({ provider, url, headers: sentHeaders, body, signal });
  } catch (error) {
    countFailure(deps, provider, error);
    throw error;
  }
}

/** Reads a whole answer; a reset or a stall midway is the upstream's failure (502/504), counted. */
export async function readAnswerText(
  deps: UpstreamCallDeps,
  provider: string,
  response: UpstreamResponse,
  signal: AbortSignal,
): Promise<string> {
  try {
    return await response.body.text();
  } catch (error) {
    const failure = classifyBodyReadError(provider, error, signal);
    countFailure(deps, provider, failure);
    throw failure;
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
export async function callUpstream(
  deps: UpstreamCallDeps,
  route: ResolvedRoute,
  plan: UpstreamPlan,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<UpstreamResponse> {
  const provider = route.provider.name;
  const url = route.baseUrl + plan.path;
  let response = await send(deps, route, url, headers, plan.payload, signal);
  // A refused short-lived credential (a Vertex access token revoked or expired early): drop it and
  // try once more with a fresh one.
  if (response.statusCode === 401 && route.onUnauthorized !== undefined) {
    await response.body.dump();
    route.onUnauthorized();
    deps.metrics.upstreamErrors.inc({ provider, kind: 'status_401_retried' });
    response = await send(deps, route, url, headers, plan.payload, signal);
  }
  if (response.statusCode < 400) return response;
  const body = await readAnswerText(deps, provider, response, signal);
  deps.metrics.upstreamErrors.inc({ provider, kind: `status_${response.statusCode}` });
  throw plan.error({
    provider,
    status: response.statusCode,
    body,
    headers: flattenHeaders(response.headers),
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
