/**
 * The route part of the `plan` step (inference-handler.ts): where the request goes for one model
 * string, and what is sent there. A plain request plans once, for the model it names; a model
 * route's attempt plans afresh for its target (routing/route-attempts.ts), always from the client's
 * own request, so that a fallback to another API shape is translated and the gateway's cache
 * declarations stay stripped.
 */
import { stripCacheDeclarations } from '../cache/cache-key.ts';
import { planUpstream } from '../translate/plans/registry.ts';
import type { InferenceDeps } from './inference-deps.ts';
import type { InferenceExchange } from './inference-exchange.ts';
import { checkResponsesPlan, responsesPlanFields } from './responses/responses-exchange.ts';

/** Resolves `model` for the exchange's principal and plans the client's request for it. */
export function planTarget(
  exchange: InferenceExchange,
  deps: Pick<InferenceDeps, 'routes'>,
  model: string,
  firstByteTimeoutMs?: number,
): void {
  const { request, body, principal, operation } = exchange;
  if (body === undefined || principal === undefined) throw new Error('planned before admitted');
  const byokRequired = String(request.headers['x-service-byok']).toLowerCase() === 'required';
  const route = deps.routes.resolve(model, operation, principal, byokRequired);
  if (firstByteTimeoutMs !== undefined) route.firstByteTimeoutMs = firstByteTimeoutMs;
  exchange.route = route;
  for (const observer of exchange.observers) observer.routed(exchange);
  exchange.plan = planUpstream(
    // Tools' cache declarations are the gateway's; the provider never sees them.
    {
      operation,
      body: stripCacheDeclarations(body.body),
      stream: body.stream,
      // The Responses API: the response's ids and the conversation read before the plan.
      ...(exchange.responses === undefined ? {} : { responses: responsesPlanFields(exchange.responses) }),
    },
    {
      shape: route.provider.shape,
      provider: route.provider.name,
      model: route.upstreamModel,
      nativePath: route.nativePath,
      ...(route.endpoint === undefined ? {} : { endpoint: route.endpoint }),
    },
  );
  if (exchange.responses !== undefined)
    checkResponsesPlan(exchange.responses, exchange.plan, route, body.body);
}
