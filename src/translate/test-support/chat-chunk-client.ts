/** What a chat-completions client reassembles from a translated chunk stream, checked as it reads. */
import { expect } from 'vitest';
import type { ChatCompletionChunk, ChatUsage } from '../../shapes/openai.ts';
import type { SseEvent } from '../../sse/sse-events.ts';

export interface CollectedChatStream {
  chunks: ChatCompletionChunk[];
  content: string;
  toolCalls: Array<{ id?: string; name?: string; arguments: string }>;
  finishReasons: string[];
  usage?: ChatUsage;
  done: boolean;
  error?: { code?: string; message?: string; type?: string };
}

/** Content and tool-call arguments concatenated as a client does; nothing may follow [DONE]. */
export function collectChatStream(events: SseEvent[]): CollectedChatStream {
  const result: CollectedChatStream = {
    chunks: [],
    content: '',
    toolCalls: [],
    finishReasons: [],
    done: false,
  };
  for (const event of events) {
    expect(event.event).toBeUndefined();
    expect(result.done).toBe(false); // nothing after [DONE]
    if (event.data === '[DONE]') {
      result.done = true;
      continue;
    }
    const body = JSON.parse(event.data);
    if (body.error !== undefined) {
      result.error = body.error;
      continue;
    }
    const chunk = body as ChatCompletionChunk;
    result.chunks.push(chunk);
    if (chunk.usage) result.usage = chunk.usage;
    for (const choice of chunk.choices) {
      result.content += choice.delta.content ?? '';
      for (const call of choice.delta.tool_calls ?? []) {
        const entry = result.toolCalls[call.index] ?? { arguments: '' };
        result.toolCalls[call.index] = entry;
        if (call.id !== undefined) entry.id = call.id;
        if (call.function?.name !== undefined) entry.name = call.function.name;
        entry.arguments += call.function?.arguments ?? '';
      }
      if (choice.finish_reason !== null) result.finishReasons.push(choice.finish_reason);
    }
  }
  return result;
}
