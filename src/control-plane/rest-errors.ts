/**
 * Errors of the control plane's REST endpoints (`/provision/tenant`, `/auth/org/create`): one
 * envelope, `{"error": {"code", "message", "fields"?}}`, with the codes the GraphQL side uses in
 * `extensions.code` (VALIDATION_ERROR, UNAUTHENTICATED, FORBIDDEN, NOT_FOUND, CONFLICT) and
 * PAYLOAD_TOO_LARGE, RATE_LIMITED, BAD_REQUEST. Messages never repeat a value the caller sent.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import type { Logger } from '../observability/logger.ts';

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

/** Installs the envelope as the error handler of an encapsulated REST plugin. */
export function useRestErrors(app: FastifyInstance, log: Logger): void {
  app.setErrorHandler((error: FastifyError | RestError, _request, reply) => {
    if (error instanceof RestError) {
      return reply
        .code(error.statusCode)
        .headers(error.headers)
        .send({
          error: {
            code: error.code,
            message: error.message,
            ...(error.fields === undefined ? {} : { fields: error.fields }),
          },
        });
    }
    const status = error.statusCode ?? 500;
    const known = FRAMEWORK_ERRORS[status];
    if (known !== undefined) return reply.code(status).send({ error: known });
    // Only the error's name and code: a message could carry what the caller sent.
    log.error({ errName: error.name, errCode: (error as FastifyError).code }, 'control plane request failed');
    return reply.code(500).send({ error: { code: 'INTERNAL_SERVER_ERROR', message: 'internal error' } });
  });
}
