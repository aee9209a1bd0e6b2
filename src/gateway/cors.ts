/**
 * CORS for browsers calling the gateway with an ephemeral token (the reason such tokens exist). The
 * credential is a bearer token in a header, never a cookie, so allowing any origin exposes nothing
 * a page could not already send; a deployment can still name its origins. Preflights are answered
 * for any request headers the client asks for (SDKs send their own), and the gateway's response
 * headers are readable by the page (routing, balance, cache, the request id).
 */
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { BALANCE_HEADERS } from '../billing/accountant.ts';
import { CACHE_AGE_HEADER, CACHE_HEADER, CACHE_SIMILARITY_HEADER } from '../cache/cache-plan.ts';
import { REQUEST_ID_HEADER } from '../observability/request-id.ts';
import { ROUTING_HEADERS } from '../providers/routing-headers.ts';

/** Preflight answers may be cached by the browser for this long. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

export async function registerCors(app: FastifyInstance, origins: '*' | readonly string[]): Promise<void> {
  if (origins !== '*' && origins.length === 0) return;
  await app.register(cors, {
    origin: origins === '*' ? '*' : [...origins],
    methods: ['GET', 'POST'],
    exposedHeaders: [
      CACHE_HEADER,
      CACHE_AGE_HEADER,
      CACHE_SIMILARITY_HEADER,
      ...Object.values(BALANCE_HEADERS),
      ...Object.values(ROUTING_HEADERS),
      'retry-after',
      REQUEST_ID_HEADER,
      'request-id',
    ],
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  });
}
