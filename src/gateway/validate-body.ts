/**
 * Loose validation at the edge of the proxy (STYLE rule 3): enough to route, bill and give a clear
 * 400; everything else passes through for the upstream to judge.
 */
import { InvalidRequestError } from '../errors/gateway-error.ts';
import type { Operation } from '../shapes/api.ts';

export type JsonObject = Record<string, unknown>;

export interface InferenceBody {
  body: JsonObject;
  model: string;
  stream: boolean;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkMessages(messages: unknown, operation: Operation): void {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new InvalidRequestError("'messages' must be a non-empty array");
  }
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index];
    if (!isObject(message) || typeof message.role !== 'string') {
      throw new InvalidRequestError(`'messages[${index}]' must be an object with a string 'role'`);
    }
    if (operation === 'messages' && !('content' in message)) {
      throw new InvalidRequestError(`'messages[${index}].content' is required`);
    }
  }
}

export function validateInferenceBody(body: unknown, operation: Operation): InferenceBody {
  if (!isObject(body)) throw new InvalidRequestError('the request body must be a JSON object');
  const model = body.model;
  if (typeof model !== 'string' || model.trim() === '')
    throw new InvalidRequestError("'model' must be a non-empty string");
  if (model.length > 256) throw new InvalidRequestError("'model' is longer than 256 characters");
  const stream = body.stream;
  if (stream !== undefined && stream !== null && typeof stream !== 'boolean') {
    throw new InvalidRequestError("'stream' must be a boolean");
  }
  switch (operation) {
    case 'chat':
      checkMessages(body.messages, operation);
      if (
        body.stream_options !== undefined &&
        body.stream_options !== null &&
        !isObject(body.stream_options)
      ) {
        throw new InvalidRequestError("'stream_options' must be an object");
      }
      break;
    case 'messages':
      checkMessages(body.messages, operation);
      if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) {
        throw new InvalidRequestError("'max_tokens' must be a positive integer");
      }
      break;
    case 'responses': {
      // `input` may be absent (a stored prompt, or only previous_response_id on OpenAI's own API).
      const input = body.input;
      if (input !== undefined && input !== null && typeof input !== 'string' && !Array.isArray(input))
        throw new InvalidRequestError("'input' must be a string or an array of items");
      // The gateway reads it (the stored conversation), whatever the route.
      const previous = body.previous_response_id;
      if (previous !== undefined && previous !== null && (typeof previous !== 'string' || previous === ''))
        throw new InvalidRequestError("'previous_response_id' must be a non-empty string");
      break;
    }
    case 'embeddings': {
      const input = body.input;
      const valid =
        typeof input === 'string' || (Array.isArray(input) && input.length > 0 && input.length <= 2048);
      if (!valid)
        throw new InvalidRequestError("'input' must be a string or a non-empty array of at most 2048 items");
      if (stream === true) throw new InvalidRequestError('embeddings cannot be streamed');
      break;
    }
  }
  return { body, model, stream: stream === true };
}
