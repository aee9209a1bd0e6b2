/**
 * The control plane's fastify app. It serves health and readiness here; the GraphQL API is
 * registered on it by the control-plane modules.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from '../observability/logger.ts';

export interface ControlPlaneDeps {
  log: Logger;
  isReady(): Promise<boolean>;
}

export async function buildControlPlaneApp(deps: ControlPlaneDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const ready = await deps.isReady().catch(() => false);
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready' });
  });
  return app;
}
