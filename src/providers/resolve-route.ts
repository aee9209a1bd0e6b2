import type { Settings } from '../config/settings.ts';
import {
  InvalidRequestError,
  ProviderUnavailableError,
  UnknownProviderError,
} from '../errors/gateway-error.ts';
import { type Operation, PROVIDERS, type ProviderDefinition } from './registry.ts';

/** Where one request goes and with which credential. */
export interface ResolvedRoute {
  provider: ProviderDefinition;
  /** The model name as the upstream knows it (prefix removed). */
  upstreamModel: string;
  /** Upstream base URL (no trailing slash). */
  baseUrl: string;
  /** The provider's own path for the operation; undefined when it is served through a translation. */
  nativePath: string | undefined;
  /** Headers that authenticate and version the upstream request. */
  headers: Record<string, string>;
  /** False: the platform's key served (and the tenant's balance pays). */
  byok: boolean;
  /** The Connection that served, on BYOK routes. */
  credential?: { id: string; slug: string };
}

/** Attribution headers of DESIGN section 5: who served, and with which Connection. */
export function renderRoutingHeaders(route: ResolvedRoute): Record<string, string> {
  if (route.credential === undefined) return { 'x-service-byok': 'false' };
  return {
    'x-service-byok': 'true',
    'x-service-credential-id': route.credential.id,
    'x-service-credential-slug': route.credential.slug,
    'x-service-credential-label': route.credential.slug,
  };
}

/** The platform endpoint and key of each provider, resolved once from settings. */
export interface PlatformEndpoints {
  get(providerName: string): { baseUrl: string; apiKey: string | undefined } | undefined;
}

export function createPlatformEndpoints(settings: Pick<Settings, 'providerEnv'>): PlatformEndpoints {
  const endpoints = new Map<string, { baseUrl: string; apiKey: string | undefined }>();
  for (const provider of PROVIDERS.values()) {
    const env = settings.providerEnv[provider.name] ?? {};
    endpoints.set(provider.name, { baseUrl: env.baseUrl ?? provider.defaultBaseUrl, apiKey: env.apiKey });
  }
  return { get: (name) => endpoints.get(name) };
}

/** Splits `provider/model` into its parts; a bare model has no prefix. */
export function splitModelName(model: string): { prefix: string | undefined; rest: string } {
  const slash = model.indexOf('/');
  if (slash <= 0) return { prefix: undefined, rest: model };
  return { prefix: model.slice(0, slash), rest: model.slice(slash + 1) };
}

/**
 * Resolves `provider/model` (or a bare model, on the default provider) to a platform route.
 * `@slug/model` (Connections) is resolved before this by the BYOK resolver.
 */
export function resolvePlatformRoute(
  model: string,
  operation: Operation,
  endpoints: PlatformEndpoints,
  defaultProvider: string,
): ResolvedRoute {
  const { prefix, rest } = splitModelName(model);
  let provider: ProviderDefinition | undefined;
  let upstreamModel = model;
  if (prefix === undefined) {
    provider = PROVIDERS.get(defaultProvider);
  } else {
    provider = PROVIDERS.get(prefix);
    // The specification makes an unknown prefix a 400; a model id that itself contains a slash
    // is sent with its provider prefix (`together/meta-llama/Llama-3-8b`).
    if (provider === undefined) throw new UnknownProviderError(prefix);
    upstreamModel = rest;
  }
  if (provider === undefined) throw new UnknownProviderError(defaultProvider);
  if (upstreamModel.length === 0)
    throw new InvalidRequestError(`model '${model}' names no model after the provider`);
  const endpoint = endpoints.get(provider.name);
  if (endpoint?.apiKey === undefined) throw new ProviderUnavailableError(provider.name);
  return {
    provider,
    upstreamModel,
    baseUrl: endpoint.baseUrl,
    nativePath: provider.paths[operation],
    headers: { ...provider.staticHeaders, ...provider.authHeaders(endpoint.apiKey) },
    byok: false,
  };
}
