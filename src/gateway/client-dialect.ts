/**
 * The client's dialect (OpenAI or Anthropic), decided once as the request arrives: everything that
 * answers the client (the error handler, the handler, a stream that fails midway) reads it from the
 * request rather than deciding again.
 */
import type { FastifyInstance } from 'fastify';
import type { ClientDialect } from '../shapes/api.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on arrival: Anthropic on /v1/messages (and below it), OpenAI everywhere else. */
    clientDialect: ClientDialect;
    /** The provider that served (or was meant to serve) the request, for metrics. */
    gatewayProvider?: string;
  }
}

export function dialectOfPath(url: string): ClientDialect {
  return url.startsWith('/v1/messages') ? 'anthropic' : 'openai';
}

export function registerClientDialect(app: FastifyInstance): void {
  app.decorateRequest('clientDialect', 'openai');
  app.addHook('onRequest', (request, _reply, done) => {
    request.clientDialect = dialectOfPath(request.url);
    done();
  });
}
