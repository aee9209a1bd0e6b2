/**
 * Model name -> route. `@slug/model` is served with the tenant's Connection of that slug (BYOK),
 * and `@slug` (or `@slug/`) with that Connection's defaultModel;
 * a slug that matches no Connection falls back to the platform key (the specification's
 * behaviour), unless BYOK is required by the request or the tenant, which makes it a 404.
 * Everything else goes through the platform registry.
 */
import type { Principal } from '../auth/principal.ts';
import { ConnectionNotFoundError, InvalidRequestError } from '../errors/gateway-error.ts';
import type { Operation } from '../shapes/api.ts';
import type { ConfigView } from '../stores/config-view.ts';
import type { ConnectionRecord, ProviderKind } from '../stores/records.ts';
import {
  authenticateWith,
  fillRegion,
  type PlatformEndpoints,
  resolveHostedRoute,
  resolvePlatformRoute,
} from './platform-routes.ts';
import { PROVIDERS } from './registry.ts';
import type { ProviderCredential, ProviderDefinition, ResolvedRoute } from './types.ts';

/** Connection provider kind -> the registry entry that speaks its API (more kinds join with their translators). */
const CONNECTION_PROVIDERS: Partial<Record<ProviderKind, string>> = {
  openai: 'openai',
  'openai-compatible': 'openai',
  anthropic: 'anthropic',
  gemini: 'gemini',
  bedrock: 'bedrock',
  'bedrock-mantle': 'bedrock-mantle',
  vertex: 'vertex',
};

export interface ConnectionSecret {
  apiKey?: string;
  [key: string]: string | undefined;
}

export interface RouteResolverOptions {
  endpoints: PlatformEndpoints;
  defaultProvider: string;
  view: ConfigView;
  /** Opens a Connection's sealed secret material. */
  unseal: (sealed: string) => ConnectionSecret;
}

export class RouteResolver {
  readonly #options: RouteResolverOptions;
  /** Unsealed material per record object; records are replaced (not mutated) on change. */
  readonly #secrets = new WeakMap<ConnectionRecord, ConnectionSecret>();

  constructor(options: RouteResolverOptions) {
    this.#options = options;
  }

  resolve(model: string, operation: Operation, principal: Principal, byokRequired: boolean): ResolvedRoute {
    const { endpoints, defaultProvider, view } = this.#options;
    if (!model.startsWith('@')) return resolvePlatformRoute(model, operation, endpoints, defaultProvider);
    const slash = model.indexOf('/');
    const slug = slash === -1 ? model.slice(1) : model.slice(1, slash);
    const rest = slash === -1 ? '' : model.slice(slash + 1);
    if (slug === '') throw new InvalidRequestError(`model '${model}' must look like @<connection>/<model>`);
    const connection = view.connectionBySlug(principal.tenantId, slug);
    const usable =
      connection !== undefined &&
      (connection.workspaceId === undefined || connection.workspaceId === principal.workspaceId);
    if (!usable) {
      if (byokRequired || view.tenant(principal.tenantId)?.strictByok === true)
        throw new ConnectionNotFoundError(slug);
      if (rest === '')
        throw new InvalidRequestError(
          `model '${model}' names no model, and no connection '${slug}' supplies a default; use @${slug}/<model>`,
        );
      return resolvePlatformRoute(rest, operation, endpoints, defaultProvider);
    }
    // `@slug` or `@slug/` alone: the Connection's defaultModel.
    const upstream = rest === '' ? connection.defaultModel : rest;
    if (upstream === undefined || upstream === '')
      throw new InvalidRequestError(
        `model '${model}' names no model and connection '${slug}' has no defaultModel; use @${slug}/<model>`,
      );
    return this.#connectionRoute(connection, upstream, operation);
  }

  #connectionRoute(connection: ConnectionRecord, model: string, operation: Operation): ResolvedRoute {
    const providerName = CONNECTION_PROVIDERS[connection.provider];
    const base = providerName === undefined ? undefined : PROVIDERS.get(providerName);
    if (base === undefined) {
      throw new InvalidRequestError(
        `connections of kind '${connection.provider}' are not supported on this gateway yet`,
      );
    }
    const secret = this.#secretOf(connection);
    // A hosting provider (Vertex): the Connection's service-account key, project and region.
    if (base.target !== undefined) {
      // Not the platform's missing credential (ProviderUnavailableError): this Connection's own.
      if (!secret.gcpServiceAccountJson && secret.apiKey === undefined)
        throw new InvalidRequestError(
          `connection '${connection.slug}' has no service account (gcpServiceAccountJson in its secret), nor an API key`,
        );
      const hosted: ProviderCredential = {
        ...(secret.apiKey === undefined ? {} : { apiKey: secret.apiKey }),
        ...(secret.gcpServiceAccountJson ? { gcpServiceAccountJson: secret.gcpServiceAccountJson } : {}),
        ...(connection.vertexProject === undefined ? {} : { project: connection.vertexProject }),
        ...(connection.vertexRegion === undefined ? {} : { region: connection.vertexRegion }),
      };
      const baseUrl = (connection.baseUrl ?? base.defaultBaseUrl).replace(/\/+$/, '');
      const route = resolveHostedRoute(base, stripOwnPrefix(model, base.name), operation, hosted, baseUrl);
      return {
        ...route,
        provider: { ...route.provider, name: connection.provider },
        byok: true,
        credential: { id: connection.id, slug: connection.slug },
      };
    }
    const credential = connectionCredential(connection, secret);
    const auth = authenticateWith(base, credential);
    if (auth === undefined && connection.provider !== 'openai-compatible') {
      throw new InvalidRequestError(
        `connection '${connection.slug}' has no usable credential (apiKey${base.createSigner === undefined ? '' : ', or AWS access keys'})`,
      );
    }
    // Named by the Connection's kind, for metrics and error messages.
    const provider: ProviderDefinition = { ...base, name: connection.provider };
    return {
      provider,
      upstreamModel: stripOwnPrefix(model, base.name),
      // (the kind, e.g. openai-compatible, is not a registry prefix, so only the shape's own is stripped)
      baseUrl: fillRegion((connection.baseUrl ?? base.defaultBaseUrl).replace(/\/+$/, ''), base, credential),
      // An OpenAI-compatible server may lack OpenAI's Responses API: it gets it through chat completions.
      nativePath:
        connection.provider === 'openai-compatible' && operation === 'responses'
          ? undefined
          : base.paths[operation],
      headers: { ...base.staticHeaders, ...auth?.headers },
      byok: true,
      credential: { id: connection.id, slug: connection.slug },
      ...(auth?.sign === undefined ? {} : { sign: auth.sign }),
    };
  }

  #secretOf(connection: ConnectionRecord): ConnectionSecret {
    let secret = this.#secrets.get(connection);
    if (secret === undefined) {
      secret = this.#options.unseal(connection.sealedSecret);
      this.#secrets.set(connection, secret);
    }
    return secret;
  }
}

/**
 * The Connection's secret material as a provider credential: the API key, AWS access keys
 * (awsAccessKeyId, awsSecretAccessKey, awsSessionToken) and the region (the record's awsRegion,
 * else the secret's).
 */
function connectionCredential(connection: ConnectionRecord, secret: ConnectionSecret): ProviderCredential {
  const credential: ProviderCredential = secret.apiKey === undefined ? {} : { apiKey: secret.apiKey };
  const { awsAccessKeyId, awsSecretAccessKey, awsSessionToken } = secret;
  if (awsAccessKeyId && awsSecretAccessKey)
    credential.aws = {
      accessKeyId: awsAccessKeyId,
      secretAccessKey: awsSecretAccessKey,
      ...(awsSessionToken ? { sessionToken: awsSessionToken } : {}),
    };
  const region = connection.awsRegion ?? secret.awsRegion;
  if (region) credential.region = region;
  return credential;
}

/** `@my-openai/openai/gpt-4o` and `@my-openai/gpt-4o` both mean `gpt-4o` on that Connection. */
function stripOwnPrefix(model: string, providerName: string): string {
  return model.startsWith(`${providerName}/`) ? model.slice(providerName.length + 1) : model;
}
