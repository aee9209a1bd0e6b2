/**
 * The contracts of providers/: what a provider is (a shape, an endpoint and auth), its
 * credentials, request signing, and what a hosting provider resolves for one model. A leaf module:
 * the provider modules and the registry import it, it imports none of them.
 */
import type { Settings } from '../config/settings.ts';
import type { ApiShape, Operation } from '../shapes/api.ts';
import type { HostedEndpoint } from '../translate/types.ts';

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
  /** Region used for a `{region}` in the base URL and for signing when the credential names none. */
  defaultRegion?: string;
  /**
   * Per-request signing for this credential (SigV4), or undefined when the credential
   * authenticates by header alone (`authHeaders`). The handler calls the signer with the final URL
   * and body right before sending.
   */
  createSigner?(credential: ProviderCredential): RequestSigner | undefined;
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
  method: 'POST' | 'GET' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Returns the headers to send instead of `request.headers` (they include the signature). */
export type RequestSigner = (request: OutgoingRequest) => Promise<Record<string, string>>;

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
  /** Signs each request (SigV4) right before it is sent: the handler passes the final URL, headers and body. */
  sign?: RequestSigner;
  /**
   * Present when `sign` adds a cached credential the upstream may stop taking before its expiry
   * (Vertex OAuth2 tokens): drops the credential `sign` last added. On an upstream 401 the handler
   * calls it, signs the same request again (a fresh credential) and retries once.
   */
  onUnauthorized?: () => void;
  /** Set for providers hosting the shape at their own URLs: translations take paths and body from it. */
  endpoint?: HostedEndpoint;
  /**
   * An attempt of a model route: its first byte must come within this, else it is a timeout (and
   * the route may try another target). Absent: the upstream client's own timeouts alone.
   */
  firstByteTimeoutMs?: number;
}
