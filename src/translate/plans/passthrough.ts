/**
 * Same shape on both sides (STYLE rule 3): the client's body goes upstream as it is, but for what
 * the gateway owns (the model name, and on OpenAI streams the usage chunk it needs for billing),
 * and the answer comes back byte for byte. On a hosting provider (Vertex) the host's path and body
 * form apply.
 */
import { InvalidRequestError } from '../../errors/gateway-error.ts';
import { mapUpstreamError } from '../../errors/upstream-errors.ts';
import { type ClientDialect, OPERATION_ROUTE } from '../../shapes/api.ts';
import type { PlanRequest, StreamPipeline, UpstreamPlan, UpstreamTarget } from '../types.ts';
import { readClientUsage, wantsStreamUsage } from './client-usage.ts';
import { createAnthropicStreamObserver, createOpenAiStreamObserver } from './stream-observers.ts';
import { createStreamPipeline } from './stream-pipeline.ts';

/**
 * Client headers passed on to an upstream of the client's own shape (everything else is the
 * gateway's to set): Anthropic's beta flags mean nothing to, or break, any other upstream.
 */
const FORWARDED_HEADERS: Readonly<Record<ClientDialect, readonly string[]>> = {
  anthropic: ['anthropic-beta'],
  openai: [],
};

export function planPassthrough(
  request: PlanRequest,
  target: UpstreamTarget,
  dialect: ClientDialect,
): UpstreamPlan {
  const { body, stream } = request;
  const hosted = target.endpoint;
  const path = hosted?.path('messages', stream) ?? target.nativePath;
  if (path === undefined) {
    throw new InvalidRequestError(
      `provider '${target.provider}' does not serve ${OPERATION_ROUTE[request.operation]}`,
    );
  }
  const clientWantsUsage = wantsStreamUsage(dialect, body);
  let upstreamBody: Record<string, unknown> = { ...body, model: target.model };
  // Streams must be billed: usage is asked of the upstream whatever the client asked, and the
  // extra chunk is dropped again by the pipeline below when the client did not ask for it.
  if (stream && dialect === 'openai' && !clientWantsUsage) {
    const options = body.stream_options as Record<string, unknown> | undefined | null;
    upstreamBody.stream_options = { ...options, include_usage: true };
  }
  if (hosted !== undefined) upstreamBody = hosted.body(upstreamBody);
  return {
    kind: 'passthrough',
    path,
    payload: JSON.stringify(upstreamBody),
    forwardedHeaders: FORWARDED_HEADERS[dialect],
    framing: 'sse',
    answer: (text) => ({ text, usage: readClientUsage(text, dialect) }),
    stream: (): StreamPipeline =>
      createStreamPipeline(
        undefined,
        dialect === 'anthropic'
          ? createAnthropicStreamObserver()
          : createOpenAiStreamObserver(clientWantsUsage),
        undefined,
      ),
    error: ({ provider, status, body: text, headers }) =>
      mapUpstreamError(provider, status, text, headers['retry-after']),
  };
}
