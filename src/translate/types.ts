/**
 * The contracts of translate/: per-request stream translators, and the plan that owns everything
 * the gateway says to an upstream and hears back for one request (body, path, how the answer and
 * the stream become the client's, whose usage is billed, how an error answer maps). A leaf module:
 * providers and the gateway import these types; it imports only other leaf contracts.
 */
import type { GatewayError } from '../errors/gateway-error.ts';
import type { ApiShape, Operation } from '../shapes/api.ts';
import type { TokenUsage } from '../shapes/usage.ts';
import type { SseEvent } from '../sse/sse-events.ts';
import type { StreamFraming } from '../sse/stream-framing.ts';

/**
 * A per-request stream translator: fed the upstream's parsed events one by one (SSE events, or AWS
 * event-stream frames decoded to the same shape by sse/aws-event-stream.ts), it returns the
 * events to send to the client in its own shape. It keeps only the state one response needs, never
 * blocks and never sees raw SSE text.
 */
export interface StreamTranslator {
  /** One upstream event in; zero or more client events out, in order. */
  push(event: SseEvent): SseEvent[];
  /** The upstream body ended; returns what must still be sent (an error event if the stream was cut short). */
  end(): SseEvent[];
}

/** An upstream error body reduced to what the client's envelope carries; the status is the gateway's to map. */
export interface UpstreamErrorDetail {
  message: string;
  /** The error type in the client's vocabulary. */
  type: string;
}

/**
 * How a hosting provider addresses one model (Vertex): plans take the path of each call and the
 * body adjustments from it instead of the shape's own defaults.
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

/** Where one request goes, as far as the plan needs to know: the upstream's shape and addresses. */
export interface UpstreamTarget {
  shape: ApiShape;
  /** The provider's name as routed (`openai`, `groq`, `openai-compatible`, ...), for messages and quirks. */
  provider: string;
  /** The model name as the upstream knows it. */
  model: string;
  /** The provider's own path for the operation, when it serves it in the client's shape. */
  nativePath: string | undefined;
  /** Set for providers hosting the shape at their own URLs (Vertex). */
  endpoint?: HostedEndpoint;
}

export interface PlanRequest {
  operation: Operation;
  /** The client's body, validated, with the gateway's own declarations stripped. */
  body: Record<string, unknown>;
  stream: boolean;
  /**
   * The Responses API's ids and stored conversation (`responses` only; plans/responses.ts): the
   * response id minted by the gateway, its item ids, the items before this request's input.
   */
  responses?: {
    responseId: string;
    generateId?: (prefix: string) => string;
    history?: readonly unknown[];
  };
}

/** An upstream answer with an error status, read whole. */
export interface UpstreamErrorAnswer {
  /** The provider name as the client knows it (for the message). */
  provider: string;
  status: number;
  body: string;
  headers: Readonly<Record<string, string | undefined>>;
}

/** One upstream call of a multi-call plan: a path on the route's base URL and a JSON body. */
export interface UpstreamCall {
  path: string;
  body: unknown;
}

/** An upstream answer, read whole. Error statuses are returned, not thrown: the plan maps them. */
export interface UpstreamCallAnswer {
  statusCode: number;
  headers: Readonly<Record<string, string | undefined>>;
  text: string;
}

/** Sends one call; rejects only when no answer came (transport failure, timeout, client abort, refused auth). */
export type SendUpstreamCall = (call: UpstreamCall) => Promise<UpstreamCallAnswer>;

/** An answer in the client's shape, and the usage to bill for it (undefined: the upstream reported none). */
export interface PlannedAnswer {
  text: string;
  usage: TokenUsage | undefined;
}

/**
 * One request's stream, upstream events in, client events out: translation (when the shapes
 * differ), the events the client did not ask for left out (the usage chunk the gateway asked for on
 * its behalf), usage read where it is whole, and the client's end marker noticed.
 */
export interface StreamPipeline {
  push(event: SseEvent): SseEvent[];
  end(): SseEvent[];
  /** Usage to bill: the upstream's own where the client's shape would lose part of it. */
  usage(): TokenUsage | undefined;
  /** Characters of generated output the client got, for an estimate when no usage came. */
  outputChars(): number;
  /** Whether the client's end marker ([DONE], message_stop) went out: the answer is whole. */
  completed(): boolean;
  /** Responses API streams: the response object their terminal event carried, once it went by. */
  response?(): Record<string, unknown> | undefined;
  /**
   * Responses API streams the gateway numbers (translated ones): the client's events for a failure
   * after the stream began (`error`, then `response.failed`), in sequence.
   */
  fail?(failure: { code: string; message: string }): SseEvent[];
}

/**
 * Everything the gateway says to an upstream and hears back for one request. Made by
 * translate/plans (one registry for every client operation and upstream shape): passthrough when
 * the shapes are the same, a translation otherwise; what cannot be served is refused there.
 */
export interface UpstreamPlan {
  kind: 'passthrough' | 'translated';
  /** Appended to the route's base URL. */
  path: string;
  /** The upstream request body, serialised. */
  payload: string;
  /** Client headers passed on as they are (only to an upstream of the client's own shape). */
  forwardedHeaders: readonly string[];
  /** How the upstream frames a stream (SSE, or Bedrock's AWS event-stream). */
  framing: StreamFraming;
  /** The upstream's JSON answer (2xx) in the client's shape, with its usage; a 502 when unreadable. */
  answer(upstreamText: string): PlannedAnswer;
  /** A fresh pipeline for this request's stream. */
  stream(): StreamPipeline;
  /** The upstream's error answer (4xx/5xx) as the gateway error the client gets. */
  error(answer: UpstreamErrorAnswer): GatewayError;
  /**
   * Present when one request takes several upstream calls (Gemini embeddings, in batches): the
   * gateway hands it a sender (the route's base URL, headers and auth) and answers with what it
   * returns; it maps failed answers itself. `path` and `payload` are then the first call's.
   */
  execute?(send: SendUpstreamCall): Promise<PlannedAnswer>;
}
