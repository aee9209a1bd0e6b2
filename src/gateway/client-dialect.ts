/**
 * The client's dialect (OpenAI or Anthropic), decided once as the request arrives: everything that
 * answers the client (the error handler, the handler, a stream that fails midway) reads it from the
 * request rather than deciding again.
 */
import type { FastifyInstance } from 'fastify';
import type { ClientDialect } from '../shapes/api.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on arrival: Anthropic on /v1/messages (and below it) and for Anthropic clients listing models, OpenAI everywhere else. */
    clientDialect: ClientDialect;
    /** The provider that served (or was meant to serve) the request, for metrics. */
    gatewayProvider?: string;
  }
}

export function dialectOfPath(url: string): ClientDialect {
  return url.startsWith('/v1/messages') ? 'anthropic' : 'openai';
}

/** The path's dialect; on the routes both SDKs call (`/v1/models`), the one the client's headers say. */
function dialectOf(url: string, headers: Record<string, string | string[] | undefined>): ClientDialect {
  if (url.startsWith('/v1/models') && headers['anthropic-version'] !== undefined) return 'anthropic';
  return dialectOfPath(url);
}

/** Where Anthropic's SDKs read the request id (`_request_id`); OpenAI's read `x-request-id`. */
export const ANTHROPIC_REQUEST_ID_HEADER = 'request-id';

export function registerClientDialect(app: FastifyInstance): void {
  app.decorateRequest('clientDialect', 'openai');
  app.addHook('onRequest', (request, reply, done) => {
    const dialect = dialectOf(request.url, request.headers);
    request.clientDialect = dialect;
    if (dialect === 'anthropic') reply.header(ANTHROPIC_REQUEST_ID_HEADER, request.id);
    done();
  });
}
