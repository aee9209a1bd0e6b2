/**
 * What `GET /v1/models` lists for a caller: the catalogue's models of each provider the platform
 * holds a key for (`provider/model`), and the caller's Connections (`@slug/model`: the Connection's
 * default model, or its kind's catalogue when it names none). Only what the caller may use: a
 * workspace key's grants decide between chat and embedding models, an ephemeral token's route
 * scopes too, and its `model:` scopes name the models exactly.
 */
import type { Principal } from '../auth/principal.ts';
import { type CatalogueModel, MODEL_CATALOGUE, type ModelUse } from '../providers/model-catalogue.ts';
import type { ConnectionRecord } from '../stores/records.ts';

export interface ListedModel {
  /** As a request names it: `openai/gpt-4o`, `@mine/gpt-4o`. */
  id: string;
  /** The provider, or `@slug` for a Connection. */
  ownedBy: string;
}

/** Whether the principal may call a model of this use (a route it holds the grant and scope for). */
function mayUse(principal: Principal, use: ModelUse | undefined): boolean {
  const chat =
    principal.grants.has('chat:write') &&
    (principal.token === undefined ||
      principal.token.routes.has('chat') ||
      principal.token.routes.has('messages') ||
      principal.token.routes.has('responses'));
  const embed =
    principal.grants.has('embed') &&
    (principal.token === undefined || principal.token.routes.has('embeddings'));
  if (use === 'chat') return chat;
  if (use === 'embeddings') return embed;
  return chat || embed;
}

function useOf(provider: string, model: string): ModelUse | undefined {
  return MODEL_CATALOGUE.get(provider)?.find((entry) => entry.id === model)?.use;
}

export function listModels(
  principal: Principal,
  platformProviders: readonly string[],
  connections: readonly ConnectionRecord[],
): ListedModel[] {
  const listed = new Map<string, ListedModel & { use: ModelUse | undefined }>();
  const add = (id: string, ownedBy: string, use: ModelUse | undefined) => {
    if (!listed.has(id)) listed.set(id, { id, ownedBy, use });
  };
  for (const provider of platformProviders) {
    for (const model of MODEL_CATALOGUE.get(provider) ?? [])
      add(`${provider}/${model.id}`, provider, model.use);
  }
  const usable = connections.filter(
    (connection) => connection.workspaceId === undefined || connection.workspaceId === principal.workspaceId,
  );
  for (const connection of usable) {
    const owner = `@${connection.slug}`;
    const models: readonly CatalogueModel[] =
      connection.defaultModel === undefined
        ? (MODEL_CATALOGUE.get(connection.provider) ?? [])
        : [
            {
              id: connection.defaultModel,
              use: useOf(connection.provider, connection.defaultModel) ?? 'chat',
            },
          ];
    for (const model of models) add(`${owner}/${model.id}`, owner, model.use);
  }
  const named = principal.token?.models ?? new Set<string>();
  if (named.size > 0) {
    // A token names its models exactly; those the catalogue lacks are listed when a provider or
    // Connection of the caller would serve them.
    const servable = (id: string) => {
      const slash = id.indexOf('/');
      const prefix = slash <= 0 ? undefined : id.slice(0, slash);
      if (prefix === undefined) return false;
      return prefix.startsWith('@')
        ? usable.some((connection) => `@${connection.slug}` === prefix)
        : platformProviders.includes(prefix);
    };
    for (const id of named) if (servable(id)) add(id, id.slice(0, id.indexOf('/')), undefined);
    for (const id of listed.keys()) if (!named.has(id)) listed.delete(id);
  }
  return [...listed.values()]
    .filter((model) => mayUse(principal, model.use))
    .map(({ id, ownedBy }) => ({ id, ownedBy }))
    .sort((left, right) => (left.id < right.id ? -1 : left.id > right.id ? 1 : 0));
}
