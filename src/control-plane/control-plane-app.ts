/**
 * The control plane's fastify app: `POST /graphql` (Bearer PAT), health and readiness.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { ExecutionResult } from 'graphql';
import { hashCredential } from '../auth/credential-hash.ts';
import type { Logger } from '../observability/logger.ts';
import type { ControlPlaneServices } from './graphql/context.ts';
import {
  DEFAULT_LIMITS,
  type ExecutionLimits,
  executeGraphQL,
  type GraphQLRequestBody,
} from './graphql/execute.ts';
import { buildControlPlaneSchema } from './graphql/schema.ts';

export interface ControlPlaneDeps {
  log: Logger;
  isReady(): Promise<boolean>;
  services: ControlPlaneServices;
  limits?: Partial<ExecutionLimits>;
}

const PAT_PREFIX = 'tt_pat_';

function unauthenticated(message: string): ExecutionResult {
  return { errors: [{ message, extensions: { code: 'UNAUTHENTICATED' } } as never] };
}

export async function buildControlPlaneApp(deps: ControlPlaneDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 256 * 1024,
  });
  const schema = buildControlPlaneSchema();
  const limits: ExecutionLimits = { ...DEFAULT_LIMITS, ...deps.limits };

  app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode < 500 ? error.statusCode : 500;
    const code = status < 500 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR';
    if (status >= 500) deps.log.error({ err: error }, 'control plane error');
    return reply
      .code(status)
      .send({ errors: [{ message: status < 500 ? error.message : 'internal error', extensions: { code } }] });
  });

  app.post('/graphql', async (request, reply) => {
    const authorization = request.headers.authorization;
    const credential =
      typeof authorization === 'string' && authorization.toLowerCase().startsWith('bearer ')
        ? authorization.slice(7).trim()
        : undefined;
    if (credential === undefined || !credential.startsWith(PAT_PREFIX) || credential.length > 512) {
      return reply.code(401).send(unauthenticated('send Authorization: Bearer <personal access token>'));
    }
    const pat = deps.services.view.patByHash(hashCredential(credential));
    if (pat === undefined || deps.services.view.tenant(pat.tenantId) === undefined) {
      return reply.code(401).send(unauthenticated('unknown or revoked personal access token'));
    }
    const result = await executeGraphQL(
      schema,
      (request.body ?? {}) as GraphQLRequestBody,
      { services: deps.services, pat, tenantId: pat.tenantId },
      limits,
      (error) => deps.log.error({ err: error }, 'resolver failed'),
    );
    const badRequest =
      result.data === undefined &&
      result.errors?.some((error) => error.extensions?.code !== 'INTERNAL_SERVER_ERROR');
    return reply.code(badRequest ? 400 : 200).send(result);
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const ready = await deps.isReady().catch(() => false);
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready' });
  });
  return app;
}
