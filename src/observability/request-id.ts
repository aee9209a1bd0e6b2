/**
 * Request ids, on both listeners (gateway and control plane): every response carries
 * `x-request-id`, the client's own when it sent a sane one, else one made here; the same id is
 * fastify's `request.id`, which the access log line, the span and the error bodies read.
 *
 * A client's id is kept only when it is short and plain (it goes into logs, spans and headers
 * unescaped): anything else is replaced, never rejected, since an odd id is no reason to fail a
 * request. Made ids are a random per-process prefix and a counter: unique without a random draw
 * per request (the gateway's hot path), and across pods by the prefix's 64 random bits.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';

/** The longest client id kept. */
export const MAX_REQUEST_ID_LENGTH = 128;

/** Letters, digits and the punctuation of common id formats (UUIDs, ULIDs, base64, `req_...`). */
const SANE_REQUEST_ID = /^[\w.:@/+=-]+$/;

/** Whether a client's `x-request-id` is kept as the request's id. */
export function isSaneRequestId(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= MAX_REQUEST_ID_LENGTH &&
    SANE_REQUEST_ID.test(value)
  );
}

/** The counter stays a small integer (V8's SMI); past it, a new prefix starts the count again. */
const MAX_COUNTER = 0x7fffffff;

let prefix = '';
let counter = MAX_COUNTER;

/** A new id: `req_`, 16 hex digits drawn once per 2^31 ids, and the counter in base 36. */
export function generateRequestId(): string {
  if (counter >= MAX_COUNTER) {
    prefix = `req_${randomBytes(8).toString('hex')}`;
    counter = 0;
  }
  counter += 1;
  return prefix + counter.toString(36);
}

/** fastify's `genReqId` option: the client's sane `x-request-id`, else a new one. */
export function requestIdOf(request: IncomingMessage): string {
  const sent = request.headers[REQUEST_ID_HEADER];
  return isSaneRequestId(sent) ? sent : generateRequestId();
}

/**
 * Puts the id on every response that passes the hooks. A callback hook, not an async one: no
 * promise per request. Responses written before any hook runs (fastify's `frameworkErrors`) and
 * hijacked ones (streams) set it themselves; a stream copies the reply's headers, this one with them.
 */
export function registerRequestIdHeader(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}
