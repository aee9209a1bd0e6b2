/**
 * URLs fastify's router refuses before any hook or route runs (a malformed percent-escape:
 * FST_ERR_BAD_URL; a path parameter over its length limit: FST_ERR_MAX_PARAM_LENGTH), answered in
 * the gateway's one envelope rather than fastify's own body, like every other error.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, InvalidRequestError } from '../errors/gateway-error.ts';
import { asGatewayError, renderError } from '../errors/render-error.ts';
import { REQUEST_ID_HEADER } from '../observability/request-id.ts';
import { ANTHROPIC_REQUEST_ID_HEADER, dialectOfPath } from './client-dialect.ts';

function classifyFrameworkError(error: FastifyError): GatewayError {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return new InvalidRequestError('the URL path holds a malformed percent-escape');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new GatewayError('uri_too_long', 414, 'invalid_request_error', 'the URL path is too long');
    default:
      return asGatewayError(error);
  }
}

/** fastify's `frameworkErrors` option of the gateway app (no hook ran: the request id goes on here). */
export function renderFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const dialect = dialectOfPath(request.url);
  const rendered = renderError(classifyFrameworkError(error), dialect, request.id);
  reply.code(rendered.statusCode).headers(rendered.headers).header(REQUEST_ID_HEADER, request.id);
  if (dialect === 'anthropic') reply.header(ANTHROPIC_REQUEST_ID_HEADER, request.id);
  void reply.send(rendered.body);
}
