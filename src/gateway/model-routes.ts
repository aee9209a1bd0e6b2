/**
 * `GET /v1/models` and `GET /v1/models/{id}`: the models the caller may use (model-list.ts), in
 * OpenAI's list shape, or in Anthropic's when the caller is an Anthropic client (it sends
 * `anthropic-version`).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { extractCredential } from '../auth/authenticate.ts';
import { GatewayError } from '../errors/gateway-error.ts';
import { createPlatformEndpoints, platformProvidersOf } from '../providers/platform-routes.ts';
import type { InferenceDeps } from './inference-deps.ts';
import { type ListedModel, listModels } from './model-list.ts';

class ModelNotFoundError extends GatewayError {
  constructor(id: string) {
    super('not_found', 404, 'not_found_error', `no model '${id}' is available to this caller`);
  }
}

export function registerModelRoutes(app: FastifyInstance, deps: InferenceDeps): void {
  const platformProviders = platformProvidersOf(createPlatformEndpoints(deps.settings));
  // OpenAI's `created` is a Unix time; the gateway's models exist for it since it started.
  const createdSeconds = Math.floor(Date.now() / 1000);
  const createdAt = new Date(createdSeconds * 1000).toISOString();

  async function modelsFor(request: FastifyRequest): Promise<ListedModel[]> {
    const principal = await deps.authenticator.authenticate(extractCredential(request.headers));
    return listModels(principal, platformProviders, deps.view.connectionsOfTenant(principal.tenantId));
  }
  const openAiModel = (model: ListedModel) => ({
    id: model.id,
    object: 'model',
    created: createdSeconds,
    owned_by: model.ownedBy,
  });
  const anthropicModel = (model: ListedModel) => ({
    type: 'model',
    id: model.id,
    display_name: model.id,
    created_at: createdAt,
  });

  app.get('/v1/models', async (request) => {
    const models = await modelsFor(request);
    if (request.clientDialect === 'anthropic') {
      return {
        data: models.map(anthropicModel),
        has_more: false,
        first_id: models[0]?.id ?? null,
        last_id: models.at(-1)?.id ?? null,
      };
    }
    return { object: 'list', data: models.map(openAiModel) };
  });

  // Model ids hold slashes (`openai/gpt-4o`, `@mine/gpt-4o`): the rest of the path is the id,
  // which fastify has already percent-decoded (decoding again would turn `%25` into an escape, and
  // a lone `%` into a URIError).
  app.get('/v1/models/*', async (request) => {
    const id = (request.params as { '*': string })['*'];
    const model = (await modelsFor(request)).find((candidate) => candidate.id === id);
    if (model === undefined) throw new ModelNotFoundError(id);
    return request.clientDialect === 'anthropic' ? anthropicModel(model) : openAiModel(model);
  });
}
