/**
 * Platform routes: `provider/model` (or a bare model, on the default provider) served with the
 * platform's endpoint and key for that provider, resolved once from settings; and the helpers a
 * Connection's route shares (authentication, regions, hosting providers).
 */
import type { Settings } from '../config/settings.ts';
import {
  InvalidRequestError,
  ProviderUnavailableError,
  UnknownProviderError,
} from '../errors/gateway-error.ts';
import type { Operation } from '../shapes/api.ts';
import { PROVIDERS } from './registry.ts';
import type { ProviderCredential, ProviderDefinition, RequestSigner, ResolvedRoute } from './types.ts';

/** The platform endpoint and key of each provider, resolved once from settings. */
export interface PlatformEndpoints {
  get(
    providerName: string,
  ): { baseUrl: string; apiKey: string | undefined; credential?: ProviderCredential } | undefined;
}

export function createPlatformEndpoints(
  settings: Pick<Settings, 'providerEnv' | 'platformAws'> & Partial<Pick<Settings, 'platformVertex'>>,
): PlatformEndpoints {
  const endpoints = new Map<
    string,
    { baseUrl: string; apiKey: string | undefined; credential: ProviderCredential }
  >();
  for (const provider of PROVIDERS.values()) {
    const env = settings.providerEnv[provider.name] ?? {};
    // Hosting providers (Vertex) read their own platform credential from settings.
    const credential = provider.platformCredential?.(settings) ?? platformCredentialOf(provider, settings);
    endpoints.set(provider.name, {
      baseUrl: fillRegion(env.baseUrl ?? provider.defaultBaseUrl, provider, credential),
      apiKey: env.apiKey,
      credential,
    });
  }
  return { get: (name) => endpoints.get(name) };
}

/** The platform's credential: the provider's key, plus the platform AWS keys and region for signing providers. */
function platformCredentialOf(
  provider: ProviderDefinition,
  settings: Pick<Settings, 'providerEnv' | 'platformAws'>,
): ProviderCredential {
  const apiKey = settings.providerEnv[provider.name]?.apiKey;
  const credential: ProviderCredential = apiKey === undefined ? {} : { apiKey };
  if (provider.createSigner === undefined) return credential;
  const { accessKeyId, secretAccessKey, sessionToken, region } = settings.platformAws;
  if (region !== undefined) credential.region = region;
  if (accessKeyId !== undefined && secretAccessKey !== undefined)
    credential.aws = {
      accessKeyId,
      secretAccessKey,
      ...(sessionToken === undefined ? {} : { sessionToken }),
    };
  return credential;
}

/** `https://bedrock-runtime.{region}.amazonaws.com` with the credential's (else the provider's default) region. */
export function fillRegion(
  baseUrl: string,
  provider: ProviderDefinition,
  credential: ProviderCredential,
): string {
  if (!baseUrl.includes('{region}')) return baseUrl;
  const region = credential.region ?? provider.defaultRegion;
  if (region === undefined) throw new ProviderUnavailableError(provider.name);
  return baseUrl.replaceAll('{region}', region);
}

/** Key headers and signer of a credential; undefined when it can authenticate neither way. */
export function authenticateWith(
  provider: ProviderDefinition,
  credential: ProviderCredential,
): { headers: Record<string, string>; sign?: RequestSigner } | undefined {
  const sign = provider.createSigner?.(credential);
  if (credential.apiKey === undefined && sign === undefined) return undefined;
  return {
    headers: credential.apiKey === undefined ? {} : provider.authHeaders(credential.apiKey),
    ...(sign === undefined ? {} : { sign }),
  };
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
  if (provider.target !== undefined) {
    if (endpoint?.credential === undefined) throw new ProviderUnavailableError(provider.name);
    const route = resolveHostedRoute(
      provider,
      upstreamModel,
      operation,
      endpoint.credential,
      endpoint.baseUrl,
    );
    return { ...route, byok: false };
  }
  const auth =
    endpoint === undefined
      ? undefined
      : authenticateWith(
          provider,
          endpoint.credential ?? (endpoint.apiKey === undefined ? {} : { apiKey: endpoint.apiKey }),
        );
  if (endpoint === undefined || auth === undefined) throw new ProviderUnavailableError(provider.name);
  return {
    provider,
    upstreamModel,
    baseUrl: endpoint.baseUrl,
    nativePath: provider.paths[operation],
    headers: { ...provider.staticHeaders, ...auth.headers },
    byok: false,
    ...(auth.sign === undefined ? {} : { sign: auth.sign }),
  };
}

/**
 * The route of a provider with a `target` (Vertex): shape, URL, headers, endpoint and `sign` are
 * the model's; the provider keeps its name (metrics, prices, error messages).
 */
export function resolveHostedRoute(
  provider: ProviderDefinition,
  upstreamModel: string,
  operation: Operation,
  credential: ProviderCredential,
  baseUrl: string,
): Omit<ResolvedRoute, 'byok'> {
  const target = (provider.target as NonNullable<ProviderDefinition['target']>)(
    upstreamModel,
    operation,
    credential,
    baseUrl,
  );
  return {
    provider: { ...provider, shape: target.shape },
    upstreamModel,
    baseUrl: target.baseUrl,
    nativePath: target.nativePath,
    headers: target.headers,
    endpoint: target.endpoint,
    ...(target.sign === undefined ? {} : { sign: target.sign }),
    ...(target.onUnauthorized === undefined ? {} : { onUnauthorized: target.onUnauthorized }),
  };
}

/**
 * The registry providers the platform holds a credential for: those whose `<provider>/<model>`
 * the gateway's own route resolution would serve rather than refuse as unavailable (502).
 */
export function platformProvidersOf(endpoints: PlatformEndpoints): string[] {
  return [...PROVIDERS.keys()].filter((name) => {
    try {
      resolvePlatformRoute(`${name}/availability-check`, 'chat', endpoints, name);
      return true;
    } catch (error) {
      // Anything else (a model name a hosting provider would not take) is not about the credential.
      return !(error instanceof ProviderUnavailableError);
    }
  });
}
