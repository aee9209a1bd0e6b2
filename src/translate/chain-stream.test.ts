import { describe, expect, it } from 'vitest';
import type { SseEvent } from '../sse/sse-events.ts';
import { chainStreamTranslators } from './chain-stream.ts';
import type { StreamTranslator } from './types.ts';

/** Tags each event's data and records what it saw, so order and hand-over are visible. */
function tagger(tag: string, seen: string[], closing: SseEvent[] = []): StreamTranslator {
  return {
    push(event) {
      seen.push(`${tag}:${event.data}`);
      return event.data === 'drop' ? [] : [{ data: `${event.data}>${tag}` }];
    },
    end() {
      seen.push(`${tag}:end`);
      return closing;
    },
  };
}

describe('chainStreamTranslators', () => {
  it("feeds each of the first translator's events to the second, in order", () => {
    const seen: string[] = [];
    const chain = chainStreamTranslators(tagger('a', seen), tagger('b', seen));
    expect(chain.push({ data: 'x' })).toEqual([{ data: 'x>a>b' }]);
    expect(chain.push({ data: 'drop' })).toEqual([]);
    expect(seen).toEqual(['a:x', 'b:x>a', 'a:drop']);
  });

  it("passes the first translator's closing events through the second before ending it", () => {
    const seen: string[] = [];
    const chain = chainStreamTranslators(
      tagger('a', seen, [{ data: 'done' }]),
      tagger('b', seen, [{ data: 'b-closed' }]),
    );
    expect(chain.end()).toEqual([{ data: 'done>b' }, { data: 'b-closed' }]);
    expect(seen).toEqual(['a:end', 'b:done', 'b:end']);
  });
});
