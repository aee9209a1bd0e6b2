/**
 * Google Vertex AI as a provider (providers.md §5): one prefix, two upstream shapes by model.
 *
 * - Gemini models: the generate-content shape (the Gemini translators, unchanged) at
 *   `{P}/publishers/google/models/{m}:generateContent` and `:streamGenerateContent?alt=sse`.
 * - Claude models (`claude-*`, ids with an `@version`): the Anthropic Messages shape at
 *   `{P}/publishers/anthropic/models/{m}:rawPredict` and `:streamRawPredict`, the body without
 *   `model` and with `anthropic_version: "vertex-2023-10-16"`.
 *
 * `{P}` is `https://{host}/v1/projects/{project}/locations/{region}`, the host by region (`global`,
 * the `us`/`eu` multi-regions, or `{region}-aiplatform.googleapis.com`); `<NAME>_BASE_URL` or a
 * Connection's baseUrl replaces `https://{host}`. Project and region come from the credential
 * (Connection vertexProject/vertexRegion; VERTEX_PROJECT/VERTEX_REGION), the project else from the
 * service-account key. Auth: `Authorization: Bearer <OAuth2 token>` from the service account
 * (vertex-token.ts), added by the route's signer right before sending. With an API key instead,
 * Gemini models are served in express mode (`{host}/v1/publishers/google/models/{m}`, x-goog-api-key).
 */
import { InvalidRequestError, ProviderUnavailableError } from '../errors/gateway-error.ts';
import type { ApiShape, Operation } from '../shapes/api.ts';
import type { HostedEndpoint } from '../translate/types.ts';
import type { HostedTarget, ProviderCredential, ProviderDefinition, RequestSigner } from './types.ts';
import { GoogleAccessTokens, parseServiceAccount, type ServiceAccount } from './vertex-token.ts';

export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';
/** Where a credential names no region. */
export const DEFAULT_VERTEX_REGION = 'us-central1';

/** Token cache shared by every Vertex route of the process (tokens belong to the account). */
const accessTokens = new GoogleAccessTokens();

interface Publisher {
  /** The path segment after `publishers/`. */
  name: string;
  shape: ApiShape;
  /** The model method of one call: `method` in the shape's own vocabulary (Gemini's method names, or `messages`). */
  method(method: string, stream: boolean): string;
  body(body: Record<string, unknown>): Record<string, unknown>;
  /** Served with an API key (express mode). */
  expressMode: boolean;
}

const GOOGLE: Publisher = {
  name: 'google',
  shape: 'gemini',
  method: (method) => method,
  body: (body) => body,
  expressMode: true,
};

const ANTHROPIC: Publisher = {
  name: 'anthropic',
  shape: 'anthropic',
  method: (_method, stream) => (stream ? 'streamRawPredict' : 'rawPredict'),
  body: ({ model: _model, ...body }) => ({ anthropic_version: VERTEX_ANTHROPIC_VERSION, ...body }),
  expressMode: false,
};

/** Model-name patterns to publisher; first match wins, Google's models otherwise. */
const PUBLISHERS: ReadonlyArray<readonly [RegExp, Publisher]> = [[/^claude-/, ANTHROPIC]];

export function publisherOf(model: string): Publisher {
  return PUBLISHERS.find(([pattern]) => pattern.test(model))?.[1] ?? GOOGLE;
}

/** The API host of a Vertex location (providers.md §5 "Endpoints"). */
export function vertexHost(region: string): string {
  if (region === 'global') return 'aiplatform.googleapis.com';
  if (region === 'us' || region === 'eu') return `aiplatform.${region}.rep.googleapis.com`;
  return `${region}-aiplatform.googleapis.com`;
}

/** `@` stays readable in Claude ids (`claude-3-5-sonnet@20240620`), as Google's own examples write it. */
const encodeModel = (model: string): string => encodeURIComponent(model).replaceAll('%40', '@');

/**
 * Auth of one Vertex route: `sign` adds the service account's OAuth2 token (cached and refreshed by
 * GoogleAccessTokens); `onUnauthorized` drops the token it last added, so that after Vertex's 401
 * the next `sign` exchanges a new one (providers.md §5: drop the token, retry once).
 */
export function createVertexTokenAuth(
  account: ServiceAccount,
  tokens = accessTokens,
): { sign: RequestSigner; onUnauthorized: () => void } {
  let lastToken: string | undefined;
  return {
    sign: async (request) => {
      lastToken = await tokens.get(account);
      return { ...request.headers, authorization: `Bearer ${lastToken}` };
    },
    onUnauthorized: () => {
      if (lastToken !== undefined) tokens.invalidate(account, lastToken);
    },
  };
}

/** The upstream target of one Vertex model with one credential. Throws InvalidRequestError. */
export function resolveVertexTarget(
  model: string,
  operation: Operation,
  credential: ProviderCredential,
  baseUrl: string,
): HostedTarget {
  if (operation === 'embeddings')
    throw new InvalidRequestError("provider 'vertex' does not serve /v1/embeddings on this gateway yet");
  const publisher = publisherOf(model);
  const modelPath = (prefix: string): HostedEndpoint => ({
    path: (method, stream) =>
      `${prefix}/publishers/${publisher.name}/models/${encodeModel(model)}:${publisher.method(method, stream)}`,
    body: publisher.body,
    fetchesFileUris: true,
  });
  if (credential.gcpServiceAccountJson === undefined) {
    // No platform credential (a Connection without one is refused by the route resolver first).
    if (credential.apiKey === undefined) throw new ProviderUnavailableError('vertex');
    if (!publisher.expressMode)
      throw new InvalidRequestError(
        `vertex model '${model}' needs a service-account credential, not an API key`,
      );
    const endpoint = modelPath('/v1');
    return {
      shape: publisher.shape,
      baseUrl: (baseUrl || `https://${vertexHost('global')}`).replace(/\/+$/, ''),
      nativePath: undefined,
      headers: { 'x-goog-api-key': credential.apiKey },
      endpoint,
    };
  }
  const account = parseServiceAccount(credential.gcpServiceAccountJson);
  const project = credential.project ?? account.projectId;
  if (project === undefined)
    throw new InvalidRequestError(
      'the vertex credential names no project (vertexProject, or project_id in the key)',
    );
  const region = credential.region ?? DEFAULT_VERTEX_REGION;
  if (!/^[a-z0-9-]{1,63}$/.test(region)) throw new InvalidRequestError(`'${region}' is not a Vertex region`);
  const endpoint = modelPath(`/v1/projects/${encodeURIComponent(project)}/locations/${region}`);
  return {
    shape: publisher.shape,
    baseUrl: (baseUrl || `https://${vertexHost(region)}`).replace(/\/+$/, ''),
    // Claude models take /v1/messages natively (same shape, the endpoint's path and body).
    nativePath: publisher.shape === 'anthropic' ? endpoint.path('messages', false) : undefined,
    headers: {},
    endpoint,
    ...createVertexTokenAuth(account),
  };
}

export const vertex: ProviderDefinition = {
  name: 'vertex',
  // Per model (resolveVertexTarget); Gemini's is the default.
  shape: 'gemini',
  // Derived from the region unless VERTEX_BASE_URL or a Connection's baseUrl says otherwise.
  defaultBaseUrl: '',
  paths: {},
  authHeaders: (apiKey) => ({ 'x-goog-api-key': apiKey }),
  staticHeaders: {},
  // The whole route (shape, URL, sign) comes from the target.
  target: resolveVertexTarget,
  platformCredential: (settings) => {
    const { serviceAccountJson, project, region } = settings.platformVertex ?? {};
    const apiKey = settings.providerEnv.vertex?.apiKey;
    if (serviceAccountJson === undefined && apiKey === undefined) return undefined;
    return {
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(serviceAccountJson === undefined ? {} : { gcpServiceAccountJson: serviceAccountJson }),
      ...(project === undefined ? {} : { project }),
      ...(region === undefined ? {} : { region }),
    };
  },
};
