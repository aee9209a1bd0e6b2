/**
 * The attribution headers of every answer (DESIGN section 5): who served, and with which
 * Connection.
 */
import type { ResolvedRoute } from './types.ts';

export const ROUTING_HEADERS = {
  byok: 'x-service-byok',
  credentialId: 'x-service-credential-id',
  credentialSlug: 'x-service-credential-slug',
  /** The older name of the slug header, same value. */
  credentialLabel: 'x-service-credential-label',
  /** A model route served: the route's model (what the client sent). */
  route: 'x-service-route',
  /** The route's target that served, as the route names it (`provider/model` or `@slug/model`). */
  routeTarget: 'x-service-route-target',
  /** The attempts the route made, the one that served included. */
  routeAttempts: 'x-service-route-attempts',
} as const;

export function renderRoutingHeaders(route: ResolvedRoute): Record<string, string> {
  if (route.credential === undefined) return { [ROUTING_HEADERS.byok]: 'false' };
  return {
    [ROUTING_HEADERS.byok]: 'true',
    [ROUTING_HEADERS.credentialId]: route.credential.id,
    [ROUTING_HEADERS.credentialSlug]: route.credential.slug,
    [ROUTING_HEADERS.credentialLabel]: route.credential.slug,
  };
}
