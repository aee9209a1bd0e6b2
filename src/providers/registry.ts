/**
 * The provider registry: data, not a ladder of ifs (STYLE rule 10). A provider is an API shape
 * plus an endpoint plus auth (STYLE rule 1). The registry name is the model-name prefix
 * (`groq/llama-3.1-8b-instant`) and the environment prefix of its settings (`GROQ_API_KEY`,
 * `GROQ_BASE_URL`).
 */

import type { Settings } from '../config/settings.ts';
import { bedrock, bedrockMantle } from './bedrock.ts';
import { vertex } from './vertex.ts';

/** The API shapes the gateway speaks upstream. */
export type ApiShape = 'openai' | 'anthropic' | 'gemini' | 'bedrock';

/** The inbound operations a client can ask for. */
export type Operation = 'chat' | 'embeddings' | 'messages';

export interface ProviderDefinition {
  name: string;
  shape: ApiShape;
  /** Base URL used when `<NAME>_BASE_URL` is not set. OpenAI-style bases include `/v1`. */
  defaultBaseUrl: string;
  /** Path appended to the base URL for each operation the provider serves natively. */
  paths: Partial<Record<Operation, string>>;
  /** Upstream request headers that carry a key. */
  authHeaders(apiKey: string): Record<string, string>;
  /** Headers every request to this provider carries. */
  staticHeaders: Record<string, string>;
  // --- Signed and regional providers (Bedrock, Bedrock Mantle) ---
  /** Region used for a `{region}` in the base URL and for signing when the credential names none. */
  defaultRegion?: string;
  /**
   * Per-request signing for this credential (SigV4), or undefined when the credential
   * authenticates by header alone (`authHeaders`). The handler calls the signer with the final URL
   * and body right before sending.
   */
  createSigner?(credential: ProviderCredential): RequestSigner | undefined;
  // --- Providers hosting several vendors' shapes at model-specific URLs (Vertex) ---
  /**
   * The whole upstream target of one model with one credential, for providers whose shape, paths
   * and auth depend on the model (Vertex: Gemini models generate-content, Claude models Anthropic
   * Messages at rawPredict). Replaces `shape`, `paths`, `authHeaders` and `createSigner`. `baseUrl`
   * is the configured one, or `defaultBaseUrl`. Throws InvalidRequestError for what it cannot serve.
   */
  target?(model: string, operation: Operation, credential: ProviderCredential, baseUrl: string): HostedTarget;
  /** The platform's credential for `target` providers, from settings; undefined when not configured. */
  platformCredential?(
    settings: Pick<Settings, 'providerEnv'> & Partial<Pick<Settings, 'platformVertex'>>,
  ): ProviderCredential | undefined;
  // --- end hosting providers ---
}

/** AWS access keys (platform: AWS_ACCESS_KEY_ID, ...; Connections: awsAccessKeyId, ...). */
export interface AwsCredential {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** What authenticates calls to one provider: a key, and/or AWS keys, with the region they are for. */
export interface ProviderCredential {
  apiKey?: string;
  aws?: AwsCredential;
  region?: string;
  /** Vertex: a service-account key file's JSON, and the project it bills (else the key's project_id). */
  gcpServiceAccountJson?: string;
  project?: string;
}

/** The upstream request as it will be sent. */
export interface OutgoingRequest {
  method: 'POST' | 'GET';
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Returns the headers to send instead of `request.headers` (they include the signature). */
export type RequestSigner = (request: OutgoingRequest) => Promise<Record<string, string>>;
// --- end signed and regional providers ---

// --- Providers hosting several vendors' shapes at model-specific URLs (Vertex) ---
/**
 * How a hosting provider addresses one model: translations (gateway/translation.ts) take the path
 * of each call and the body adjustments from it instead of the shape's own defaults.
 */
export interface HostedEndpoint {
  /**
   * The path of one call, after the route's base URL. `method` is the shape's own name for it: a
   * Gemini model method (`generateContent`, `streamGenerateContent?alt=sse`) or, for the Anthropic
   * shape, `messages`.
   */
  path(method: string, stream: boolean): string;
  /** The body as this host takes it (Vertex Claude: `anthropic_version` in place of `model`). */
  body(body: Record<string, unknown>): Record<string, unknown>;
  /** The host fetches `gs://` and https file URIs named in a request itself (Vertex, unlike the Gemini API). */
  fetchesFileUris?: boolean;
}

/** What `ProviderDefinition.target` resolves for one model. */
export interface HostedTarget {
  shape: ApiShape;
  /** Without a trailing slash. */
  baseUrl: string;
  /** Set when the client's operation is served without translation (same shape). */
  nativePath: string | undefined;
  headers: Record<string, string>;
  endpoint: HostedEndpoint;
  /** Auth added right before sending (Vertex: the OAuth2 token); becomes the route's `sign`. */
  sign?: RequestSigner;
  /** Becomes the route's `onUnauthorized` (see ResolvedRoute). */
  onUnauthorized?: () => void;
}
// --- end hosting providers ---

const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

function openAiCompatible(name: string, defaultBaseUrl: string, embeddings = true): ProviderDefinition {
  return {
    name,
    shape: 'openai',
    defaultBaseUrl,
    paths: embeddings
      ? { chat: '/chat/completions', embeddings: '/embeddings' }
      : { chat: '/chat/completions' },
    authHeaders: bearer,
    staticHeaders: {},
  };
}

/** Anthropic Messages API: `x-api-key` plus the required `anthropic-version`. */
const anthropic: ProviderDefinition = {
  name: 'anthropic',
  shape: 'anthropic',
  defaultBaseUrl: 'https://api.anthropic.com',
  paths: { messages: '/v1/messages' },
  authHeaders: (apiKey) => ({ 'x-api-key': apiKey }),
  staticHeaders: { 'anthropic-version': '2023-06-01' },
};

/**
 * Gemini (Generative Language API): `x-goog-api-key`; chat completions are translated to
 * generate-content (the path depends on model and streaming, so it comes from the translation).
 */
const gemini: ProviderDefinition = {
  name: 'gemini',
  shape: 'gemini',
  defaultBaseUrl: 'https://generativelanguage.googleapis.com',
  paths: {},
  authHeaders: (apiKey) => ({ 'x-goog-api-key': apiKey }),
  staticHeaders: {},
};

const definitions: ProviderDefinition[] = [
  openAiCompatible('openai', 'https://api.openai.com/v1'),
  anthropic,
  gemini,
  openAiCompatible('groq', 'https://api.groq.com/openai/v1', false),
  openAiCompatible('mistral', 'https://api.mistral.ai/v1'),
  openAiCompatible('deepseek', 'https://api.deepseek.com/v1', false),
  openAiCompatible('together', 'https://api.together.xyz/v1'),
  openAiCompatible('fireworks', 'https://api.fireworks.ai/inference/v1'),
  openAiCompatible('openrouter', 'https://openrouter.ai/api/v1', false),
  openAiCompatible('xai', 'https://api.x.ai/v1', false),
  openAiCompatible('perplexity', 'https://api.perplexity.ai', false),
  openAiCompatible('cerebras', 'https://api.cerebras.ai/v1', false),
  openAiCompatible('deepinfra', 'https://api.deepinfra.com/v1/openai'),
  bedrock,
  bedrockMantle,
  vertex,
];

export const PROVIDERS: ReadonlyMap<string, ProviderDefinition> = new Map(
  definitions.map((definition) => [definition.name, definition]),
);

export const PROVIDER_NAMES: readonly string[] = [...PROVIDERS.keys()];
