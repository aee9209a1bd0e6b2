/**
 * Translations served by several upstream calls (Gemini embeddings in batches) get their sender
 * from here: each call goes to the route's base URL with its headers, signed by the route's `sign`
 * hook when it has one (Vertex's OAuth2 token, SigV4), under the request's abort signal.
 */
import { UpstreamTimeoutError, UpstreamUnreachableError } from '../errors/gateway-error.ts';
import {
  classifyTransportError,
  UpstreamAbortedError,
  type UpstreamResponse,
} from '../upstream/upstream-client.ts';
import type { Exchange, InferenceDeps } from './exchange.ts';

/** One upstream call of a multi-call translation: a path on the route's base URL and a JSON body. */
export interface UpstreamCall {
  path: string;
  body: unknown;
}

/** An upstream answer, read whole. Error statuses are returned, not thrown: the translation maps them. */
export interface UpstreamCallAnswer {
  statusCode: number;
  headers: Readonly<Record<string, string | undefined>>;
  text: string;
}

/** Sends one call; rejects only when no answer came (transport failure, timeout, client abort, refused auth). */
export type SendUpstreamCall = (call: UpstreamCall) => Promise<UpstreamCallAnswer>;

/** A sender for the calls of `exchange.translation`. */
export function createCallSender(
  exchange: Exchange,
  headers: Record<string, string>,
  signal: AbortSignal,
  deps: InferenceDeps,
): SendUpstreamCall {
  const { route } = exchange;
  const provider = route.provider.name;
  return async (call) => {
    const url = route.baseUrl + call.path;
    const body = JSON.stringify(call.body);
    let response: UpstreamResponse;
    try {
      const sent =
        route.sign === undefined ? headers : await route.sign({ method: 'POST', url, headers, body });
      response = await deps.upstream.send({ provider, url, headers: sent, body, signal });
    } catch (error) {
      if (!(error instanceof UpstreamAbortedError)) {
        const kind =
          error instanceof UpstreamTimeoutError
            ? 'timeout'
            : error instanceof UpstreamUnreachableError
              ? 'unreachable'
              : 'auth';
        deps.metrics.upstreamErrors.inc({ provider, kind });
        deps.log.warn({ provider, err: error }, 'upstream request failed');
      }
      throw error;
    }
    let text: string;
    try {
      text = await response.body.text();
    } catch (error) {
      throw classifyTransportError(provider, error, signal);
    }
    if (response.statusCode >= 400)
      deps.metrics.upstreamErrors.inc({ provider, kind: `status_${response.statusCode}` });
    const answerHeaders: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(response.headers))
      answerHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
    return { statusCode: response.statusCode, headers: answerHeaders, text };
  };
}
