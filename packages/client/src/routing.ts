/**
 * Routing information (specification 2.5): who served a request, the platform's key or one of the
 * tenant's Connections (bring your own key), read from the gateway's attribution headers
 * (specification 4.4).
 */
import type { HeadersLike } from './http.ts';

/** The gateway's routing attribution headers (lowercase; header names are case-insensitive). */
export const ROUTING_HEADERS = {
  byok: 'x-service-byok',
  credentialId: 'x-service-credential-id',
  credentialSlug: 'x-service-credential-slug',
  /** The older name of the slug header; the gateway sends both with the same value. */
  credentialLabel: 'x-service-credential-label',
} as const;

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
  if (byok === undefined && credentialId === undefined && connectionSlug === undefined) return undefined;
  const routing: RoutingInfo = { byok: byok?.toLowerCase() === 'true' };
  if (credentialId !== undefined) routing.credentialId = credentialId;
  if (connectionSlug !== undefined) {
    routing.connectionSlug = connectionSlug;
    routing.credentialLabel = connectionSlug;
  }
  return routing;
}
