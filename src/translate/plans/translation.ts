/**
 * What a translation planner makes of one request (translated.ts holds the planners; the registry
 * wraps each into an upstream plan). A leaf module, so that planners kept in files of their own
 * (gemini-embeddings.ts) and the table that lists them do not import each other.
 */
import type { GatewayError } from '../../errors/gateway-error.ts';
import type { StreamFraming } from '../../sse/stream-framing.ts';
import type { HostedEndpoint, SendUpstreamCall, StreamTranslator, UpstreamErrorAnswer } from '../types.ts';

/** One request translated: the upstream body and path, and how its answers come back. */
export interface Translation {
  /** Appended to the provider's base URL. */
  path: string;
  /** The upstream request body. */
  body: unknown;
  /** Upstream JSON answer -> the client's shape. */
  response(upstream: unknown): unknown;
  /** A fresh stream translator for this request (upstream events -> client events). */
  stream(): StreamTranslator;
  /**
   * Present when one request takes several upstream calls (Gemini embeddings, in batches): the
   * gateway hands it a sender (the route's base URL, headers and auth) and answers the client with
   * what it returns; it maps failed answers itself. `path` is then the first call's, `body` what
   * all calls carry (for size estimates), and `response`/`stream` are not used.
   */
  execute?(send: SendUpstreamCall): Promise<unknown>;
  /** How the upstream frames its stream (Bedrock: AWS event-stream); SSE when absent. */
  framing?: StreamFraming;
  /** The upstream's own error table (Bedrock, Gemini); absent: the generic status table. */
  error?(answer: UpstreamErrorAnswer): GatewayError;
}

export interface TranslationInput {
  body: Record<string, unknown>;
  upstreamModel: string;
  stream: boolean;
  /**
   * The provider's name as routed (`openai`, `groq`, `openai-compatible`, ...): requests to
   * OpenAI's own API differ from those to compatible servers (see MAX_COMPLETION_TOKENS_PROVIDERS).
   */
  provider?: string;
  /** Set for providers hosting the upstream shape at their own URLs (Vertex); else the shape's own paths. */
  endpoint?: HostedEndpoint;
}
