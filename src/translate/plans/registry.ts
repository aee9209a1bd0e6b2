/**
 * The one registry of upstream plans: for every client operation and upstream shape, a plan that
 * owns what the gateway says to the upstream and hears back (types.ts UpstreamPlan): passthrough
 * when the shapes are the same (passthrough.ts), a translation when one exists for the pair
 * (translated.ts), and a clear 400 when neither serves the operation.
 */
import { GatewayError, InvalidRequestError, UpstreamError } from '../../errors/gateway-error.ts';
import { mapUpstreamError } from '../../errors/upstream-errors.ts';
import { type ClientDialect, OPERATION_DIALECT, OPERATION_ROUTE, type Operation } from '../../shapes/api.ts';
import { checkChatRequestFields, checkMessagesRequestFields } from '../shared/request-fields.ts';
import type { PlanRequest, UpstreamPlan, UpstreamTarget } from '../types.ts';
import { usageOfAnswer, wantsStreamUsage } from './client-usage.ts';
import { planPassthrough } from './passthrough.ts';
import { planResponsesUpstream } from './responses.ts';
import { createAnthropicStreamObserver, createOpenAiStreamObserver } from './stream-observers.ts';
import { createStreamPipeline } from './stream-pipeline.ts';
import { TRANSLATIONS } from './translated.ts';
import type { Translation } from './translation.ts';
import { upstreamUsageReader } from './upstream-usage.ts';

/**
 * The type checks of the fields translators map, by the client's operation: run before a
 * translation only (a pass-through forwards what it does not know untouched). Embeddings' mapped
 * fields are checked by their planner.
 */
const CHECK_MAPPED_FIELDS: Partial<Record<Operation, (body: Record<string, unknown>) => void>> = {
  chat: checkChatRequestFields,
  messages: checkMessagesRequestFields,
};

/** The plan of one request to one upstream; throws InvalidRequestError when nothing serves it. */
export function planUpstream(request: PlanRequest, target: UpstreamTarget): UpstreamPlan {
  if (request.operation === 'responses') {
    if (request.responses === undefined) throw new Error('a responses plan needs its response id');
    return planResponsesUpstream(
      { body: request.body, stream: request.stream, ...request.responses },
      target,
    );
  }
  const dialect = OPERATION_DIALECT[request.operation];
  if (dialect === target.shape) return planPassthrough(request, target, dialect);
  const translate = TRANSLATIONS.get(`${request.operation}->${target.shape}`);
  if (translate === undefined) {
    throw new InvalidRequestError(
      `provider '${target.provider}' does not serve ${OPERATION_ROUTE[request.operation]}`,
    );
  }
  CHECK_MAPPED_FIELDS[request.operation]?.(request.body);
  let translation: Translation;
  try {
    translation = translate({
      body: request.body,
      upstreamModel: target.model,
      stream: request.stream,
      provider: target.provider,
      ...(target.endpoint === undefined ? {} : { endpoint: target.endpoint }),
    });
  } catch (error) {
    // A request translator is a pure function of the client's body, which the edge validates only
    // loosely (STYLE rule 3): one that cannot read it (tools that are not a list, a null content
    // part) has met a malformed request, the client's 400 as the upstream's own would be, never a 500.
    if (error instanceof GatewayError) throw error;
    throw new InvalidRequestError(
      `the request body cannot be translated for provider '${target.provider}': a field has a type ${OPERATION_ROUTE[request.operation]} does not take (tools, tool_choice, messages and their content parts)`,
      { cause: error },
    );
  }
  return planTranslated(translation, request, target, dialect);
}

function planTranslated(
  translation: Translation,
  request: PlanRequest,
  target: UpstreamTarget,
  dialect: ClientDialect,
): UpstreamPlan {
  // Billing reads the upstream's own usage where the client's shape would lose part of it.
  const reader = upstreamUsageReader(target.shape);
  const clientWantsUsage = wantsStreamUsage(dialect, request.body);
  const plan: UpstreamPlan = {
    kind: 'translated',
    path: translation.path,
    payload: JSON.stringify(translation.body),
    forwardedHeaders: [],
    framing: translation.framing ?? 'sse',
    answer(upstreamText) {
      let upstream: unknown;
      try {
        upstream = JSON.parse(upstreamText);
      } catch {
        throw new UpstreamError(502, 200, 'the upstream answered with malformed JSON', 'api_error', true);
      }
      const translated = translation.response(upstream);
      return {
        text: JSON.stringify(translated),
        usage: reader?.fromJson(upstream) ?? usageOfAnswer(translated, dialect),
      };
    },
    stream: () =>
      createStreamPipeline(
        translation.stream(),
        dialect === 'anthropic'
          ? createAnthropicStreamObserver()
          : createOpenAiStreamObserver(clientWantsUsage),
        reader?.stream(),
      ),
    error: (answer) =>
      translation.error?.(answer) ??
      mapUpstreamError(answer.provider, answer.status, answer.body, answer.headers['retry-after']),
  };
  const execute = translation.execute;
  if (execute !== undefined) {
    plan.execute = async (send) => {
      const answer = await execute(send);
      return { text: JSON.stringify(answer), usage: usageOfAnswer(answer, dialect) };
    };
  }
  return plan;
}
