/** What a Responses API client rebuilds from a stream of typed events, checking the protocol as it reads. */
import { expect } from 'vitest';
import type { SseEvent } from '../../sse/sse-events.ts';

type Json = Record<string, unknown>;

export interface CollectedResponsesStream {
  types: string[];
  /** Output items as rebuilt from the events (text and arguments from the deltas). */
  items: Json[];
  /** The `response` of the terminal event. */
  final: Json | undefined;
  terminal: string | undefined;
  error: Json | undefined;
}

/**
 * Replays the events as openai-node's accumulator and the Vercel AI SDK read them: `event:` equals
 * the body's `type`; sequence numbers count from 0 without a gap; `response.created` first; items
 * added at the next output index; every item-scoped event names the item at its index; nothing
 * after the terminal event; the terminal response's output equals the items rebuilt from deltas.
 */
export function collectResponsesStream(events: SseEvent[]): CollectedResponsesStream {
  const result: CollectedResponsesStream = {
    types: [],
    items: [],
    final: undefined,
    terminal: undefined,
    error: undefined,
  };
  events.forEach((event, position) => {
    const body = JSON.parse(event.data) as Json;
    expect(event.event).toBe(body.type);
    expect(body.sequence_number).toBe(position);
    expect(result.terminal).toBeUndefined();
    const type = String(body.type);
    result.types.push(type);
    if (position === 0) expect(type).toBe('response.created');
    const item = typeof body.output_index === 'number' ? result.items[body.output_index] : undefined;
    if (body.item_id !== undefined) expect(item?.id).toBe(body.item_id);
    switch (type) {
      case 'response.output_item.added':
        expect(body.output_index).toBe(result.items.length);
        result.items.push(structuredClone(body.item as Json));
        break;
      case 'response.content_part.added': {
        const content = item!.content as Json[];
        expect(body.content_index).toBe(content.length);
        content.push(structuredClone(body.part as Json));
        break;
      }
      case 'response.output_text.delta':
        ((item!.content as Json[])[body.content_index as number] as Json).text += String(body.delta);
        break;
      case 'response.refusal.delta':
        ((item!.content as Json[])[body.content_index as number] as Json).refusal += String(body.delta);
        break;
      case 'response.output_text.done':
        expect(((item!.content as Json[])[body.content_index as number] as Json).text).toBe(body.text);
        break;
      case 'response.function_call_arguments.delta':
        item!.arguments = String(item!.arguments) + String(body.delta);
        break;
      case 'response.function_call_arguments.done':
        expect(item!.arguments).toBe(body.arguments);
        break;
      case 'response.output_item.done':
        expect({ ...(body.item as Json), status: undefined }).toEqual({ ...item, status: undefined });
        result.items[body.output_index as number] = structuredClone(body.item as Json);
        break;
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        result.terminal = type;
        result.final = body.response as Json;
        break;
      case 'error':
        result.error = body;
        break;
    }
  });
  if (result.terminal === 'response.completed' || result.terminal === 'response.incomplete')
    expect(result.final?.output).toEqual(result.items);
  return result;
}
