/**
 * Errors of the control plane's REST endpoints (`/provision/tenant`, `/auth/org/create`) and of
 * paths it does not serve: one envelope, `{"error": {"code", "message", "fields"?}, "request_id"}`,
 * with the codes the GraphQL side uses in `extensions.code` (VALIDATION_ERROR, UNAUTHENTICATED,
 * FORBIDDEN, NOT_FOUND, CONFLICT) and PAYLOAD_TOO_LARGE, RATE_LIMITED, BAD_REQUEST. Messages never
 * repeat a value the caller sent.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../observability/logger.ts';
import { REQUEST_ID_HEADER } from '../observability/request-id.ts';
import { noteErrorCodes } from './request-observation.ts';

export class RestError extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly fields: readonly string[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    statusCode: number,
    code: string,
    message: string,
    options: { fields?: readonly string[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'RestError';
    this.statusCode = statusCode;
    this.code = code;
    this.fields = options.fields;
    this.headers = options.headers ?? {};
  }
}

export function validationFailure(message: string, fields: readonly string[]): RestError {
  return new RestError(400, 'VALIDATION_ERROR', message, { fields });
}

/** Fastify's own request errors (body parsing, size, content type), by status: no message of theirs echoes input. */
const FRAMEWORK_ERRORS: Readonly<Record<number, { code: string; message: string }>> = {
  400: { code: 'BAD_REQUEST', message: 'the body must be a JSON object' },
  413: { code: 'PAYLOAD_TOO_LARGE', message: 'the body is larger than this endpoint accepts' },
  415: { code: 'BAD_REQUEST', message: 'send Content-Type: application/json' },
};

interface RestErrorInner {
  code: string;
  message: string;
  fields?: readonly string[];
}

/** Sends the envelope, and notes its code for the metrics. */
function sendRestError(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  inner: RestErrorInner,
): FastifyReply {
  noteErrorCodes(request, [inner.code]);
  return reply.code(status).send({ error: inner, request_id: request.id });
}

/** Installs the envelope as the error handler of an encapsulated REST plugin. */
export function useRestErrors(app: FastifyInstance, log: Logger): void {
  app.setErrorHandler((error: FastifyError | RestError, request, reply) => {
    if (error instanceof RestError) {
      reply.headers(error.headers);
      return sendRestError(request, reply, error.statusCode, {
        code: error.code,
        message: error.message,
        ...(error.fields === undefined ? {} : { fields: error.fields }),
      });
    }
    const status = error.statusCode ?? 500;
    const known = FRAMEWORK_ERRORS[status];
    if (known !== undefined) return sendRestError(request, reply, status, known);
    // Only the error's name and code: a message could carry what the caller sent.
    log.error(
      { errName: error.name, errCode: (error as FastifyError).code, requestId: request.id },
      'control plane request failed',
    );
    return sendRestError(request, reply, 500, { code: 'INTERNAL_SERVER_ERROR', message: 'internal error' });
  });
}

const NOT_FOUND: RestErrorInner = Object.freeze({
  code: 'NOT_FOUND',
  message:
    'no such endpoint: the control plane serves POST /graphql, POST /admin/graphql, POST /provision/tenant and POST /auth/org/create',
});

/** The control plane's not-found handler: the envelope, not fastify's own body. */
export function answerNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendRestError(request, reply, 404, NOT_FOUND);
}

/**
 * fastify's `frameworkErrors` option (URLs its router refuses before any hook runs, so the request
 * id goes on here): the envelope, with a message that does not repeat the URL.
 */
export function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  reply.header(REQUEST_ID_HEADER, request.id);
  const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  void sendRestError(request, reply, tooLong ? 414 : 400, {
    code: 'BAD_REQUEST',
    message: tooLong ? 'the URL path is too long' : 'the URL path is not valid',
  });
}
