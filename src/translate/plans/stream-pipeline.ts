/**
 * One request's stream from upstream events to client events: the translation (none when the
 * shapes are the same), then the observer of the client's events (which drops what the client did
 * not ask for, counts output and notices the end marker), with usage read off the upstream's own
 * events where the client's shape would lose part of it.
 */
import type { SseEvent } from '../../sse/sse-events.ts';
import type { StreamPipeline, StreamTranslator } from '../types.ts';
import type { StreamObserver } from './stream-observers.ts';
import type { UpstreamStreamUsage } from './upstream-usage.ts';

export function createStreamPipeline(
  translator: StreamTranslator | undefined,
  observer: StreamObserver,
  upstreamUsage: UpstreamStreamUsage | undefined,
): StreamPipeline {
  const observe = (events: SseEvent[]) => events.filter((event) => observer.accept(event));
  return {
    push(event) {
      if (translator === undefined) return observer.accept(event) ? [event] : [];
      upstreamUsage?.accept(event);
      return observe(translator.push(event));
    },
    end: () => (translator === undefined ? [] : observe(translator.end())),
    usage: () => upstreamUsage?.usage() ?? observer.usage(),
    outputChars: () => observer.outputChars(),
    completed: () => observer.completed(),
  };
}
