/**
 * Routing information (specification 2.5): who served a request, the platform's key or one of the
 * tenant's Connections (bring your own key), and, through a model route, which target and after how
 * many attempts; read from the gateway's attribution headers (specification 4.4).
 */
import type { HeadersLike } from './http.ts';

/** The gateway's routing attribution headers (lowercase; header names are case-insensitive). */
export const ROUTING_HEADERS = {
  byok: 'x-service-byok',
  credentialId: 'x-service-credential-id',
  credentialSlug: 'x-service-credential-slug',
  /** The older name of the slug header; the gateway sends both with the same value. */
  credentialLabel: 'x-service-credential-label',
  /** A model route served: the route's model (what the request sent as `model`). */
  route: 'x-service-route',
  /** The route's target that served (on an error: the last one tried). */
  routeTarget: 'x-service-route-target',
  /** The attempts the route made. */
  routeAttempts: 'x-service-route-attempts',
} as const;

/**
 * A model route's account of a response: the request's `model` named a route (a ModelRoute), which
 * chose a target, failing over to others when one failed.
 */
export interface RouteInfo {
  /** The route's model: what the request sent as `model`. */
  model: string;
  /** The target that served, as the route names it (`provider/model` or `@slug/model`); on an error, the last one tried. */
  target?: string;
  /** The attempts made, the one that served included; 0 when every target's circuit was open (503). */
  attempts?: number;
}

/** Who served a request. */
export interface RoutingInfo {
  /** True when one of the tenant's Connections (its own key) served; false for the platform's key. */
  byok: boolean;
  /** The id of the Connection that served (`<tenant>/<slug>`); absent on platform traffic. */
  credentialId?: string;
  /**
   * The slug of the Connection that served, as used in `@<slug>/<model>`: from
   * `X-Service-Credential-Slug`, or `X-Service-Credential-Label` from gateways that only send the
   * older header. Absent on platform traffic.
   */
  connectionSlug?: string;
  /**
   * The same value as {@link RoutingInfo.connectionSlug}.
   * @deprecated Since 0.16.0: read `connectionSlug`.
   */
  credentialLabel?: string;
  /** Present when a model route served (or failed) the request; absent for a plain model string and for cache hits. */
  route?: RouteInfo;
}

function present(headers: HeadersLike, name: string): string | undefined {
  const value = headers.get(name)?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The routing information of a response, or undefined when it carries none of the routing headers
 * (an answer the gateway refused before routing, such as a 401, or a server that is not the gateway).
 */
export function parseRouting(headers: HeadersLike): RoutingInfo | undefined {
  const byok = present(headers, ROUTING_HEADERS.byok);
  const credentialId = present(headers, ROUTING_HEADERS.credentialId);
  const connectionSlug =
    present(headers, ROUTING_HEADERS.credentialSlug) ?? present(headers, ROUTING_HEADERS.credentialLabel);
  const route = parseRoute(headers);
  if (byok === undefined && credentialId === undefined && connectionSlug === undefined && route === undefined)
    return undefined;
  const routing: RoutingInfo = { byok: byok?.toLowerCase() === 'true' };
  if (credentialId !== undefined) routing.credentialId = credentialId;
  if (connectionSlug !== undefined) {
    routing.connectionSlug = connectionSlug;
    routing.credentialLabel = connectionSlug;
  }
  if (route !== undefined) routing.route = route;
  return routing;
}

/** The model route's headers, or undefined when the response carries none. */
function parseRoute(headers: HeadersLike): RouteInfo | undefined {
  const model = present(headers, ROUTING_HEADERS.route);
  if (model === undefined) return undefined;
  const route: RouteInfo = { model };
  const target = present(headers, ROUTING_HEADERS.routeTarget);
  if (target !== undefined) route.target = target;
  const attempts = present(headers, ROUTING_HEADERS.routeAttempts);
  if (attempts !== undefined && /^\d+$/.test(attempts)) route.attempts = Number(attempts);
  return route;
}
