/**
 * URLs fastify's router refuses before any hook or route runs (a malformed percent-escape:
 * FST_ERR_BAD_URL; a path parameter over its length limit: FST_ERR_MAX_PARAM_LENGTH), answered in
 * the gateway's one envelope rather than fastify's own body, like every other error.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, InvalidRequestError } from '../errors/gateway-error.ts';
import { asGatewayError, renderError } from '../errors/render-error.ts';
import { dialectOfPath } from './client-dialect.ts';

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

/** fastify's `frameworkErrors` option of the gateway app. */
export function renderFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const rendered = renderError(classifyFrameworkError(error), dialectOfPath(request.url));
  void reply.code(rendered.statusCode).headers(rendered.headers).send(rendered.body);
}
