import type { SseEvent } from '../sse/sse-events.ts';
import type { StreamTranslator } from './types.ts';

/**
 * Two stream translators in a row (shape A -> B -> C): each event the first emits is pushed to the
 * second, which parses it as its own upstream event; at the end, the first's closing events go
 * through the second before the second's own end. Serves pairs of shapes that compose two existing
 * translators (Anthropic clients on Gemini: Gemini events -> chat chunks -> Anthropic events).
 */
export function chainStreamTranslators(first: StreamTranslator, second: StreamTranslator): StreamTranslator {
  const through = (events: SseEvent[]): SseEvent[] => {
    if (events.length === 0) return events;
    const out: SseEvent[] = [];
    for (const event of events) out.push(...second.push(event));
    return out;
  };
  return {
    push: (event) => through(first.push(event)),
    end: () => [...through(first.end()), ...second.end()],
  };
}
