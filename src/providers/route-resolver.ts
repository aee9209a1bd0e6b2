/**
 * Model name -> route. `@slug/model` is served with the tenant's Connection of that slug (BYOK);
 * a slug that matches no Connection falls back to the platform key (the specification's
 * behaviour), unless BYOK is required by the request or the tenant, which makes it a 404.
 * Everything else goes through the platform registry.
 */
import type { Principal } from '../auth/principal.ts';
import { ConnectionNotFoundError, InvalidRequestError } from '../errors/gateway-error.ts';
import type { ConfigView } from '../stores/config-view.ts';
import type { ConnectionRecord, ProviderKind } from '../stores/records.ts';
import { type Operation, PROVIDERS, type ProviderDefinition } from './registry.ts';
import { type PlatformEndpoints, type ResolvedRoute, resolvePlatformRoute } from './resolve-route.ts';

/** Connection provider kind -> the registry entry that speaks its API (more kinds join with their translators). */
const CONNECTION_PROVIDERS: Partial<Record<ProviderKind, string>> = {
  openai: 'openai',
  'openai-compatible': 'openai',
  anthropic: 'anthropic',
  gemini: 'gemini',
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
    const slug = slash > 1 ? model.slice(1, slash) : '';
    const rest = slash > 1 ? model.slice(slash + 1) : '';
    if (slug === '' || rest === '')
      throw new InvalidRequestError(`model '${model}' must look like @<connection>/<model>`);
    const connection = view.connectionBySlug(principal.tenantId, slug);
    const usable =
      connection !== undefined &&
      (connection.workspaceId === undefined || connection.workspaceId === principal.workspaceId);
    if (!usable) {
      if (byokRequired || view.tenant(principal.tenantId)?.strictByok === true)
        throw new ConnectionNotFoundError(slug);
      return resolvePlatformRoute(rest, operation, endpoints, defaultProvider);
    }
    return this.#connectionRoute(connection, rest, operation);
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
    if (secret.apiKey === undefined && connection.provider !== 'openai-compatible') {
      throw new InvalidRequestError(`connection '${connection.slug}' has no apiKey`);
    }
    // Named by the Connection's kind, for metrics and error messages.
    const provider: ProviderDefinition = { ...base, name: connection.provider };
    return {
      provider,
      upstreamModel: stripOwnPrefix(model, base.name),
      // (the kind, e.g. openai-compatible, is not a registry prefix, so only the shape's own is stripped)
      baseUrl: (connection.baseUrl ?? base.defaultBaseUrl).replace(/\/+$/, ''),
      nativePath: base.paths[operation],
      headers: {
        ...base.staticHeaders,
        ...(secret.apiKey === undefined ? {} : base.authHeaders(secret.apiKey)),
      },
      byok: true,
      credential: { id: connection.id, slug: connection.slug },
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

/** `@my-openai/openai/gpt-4o` and `@my-openai/gpt-4o` both mean `gpt-4o` on that Connection. */
function stripOwnPrefix(model: string, providerName: string): string {
  return model.startsWith(`${providerName}/`) ? model.slice(providerName.length + 1) : model;
}
