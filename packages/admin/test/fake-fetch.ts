/**
 * A `fetch` for unit tests: records every request and answers with what the test queued (a JSON
 * body and status, raw text, or a thrown error).
 */
import type { FetchLike } from '../src/index.ts';

export interface RecordedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  /** The parsed JSON body. */
  body: Record<string, unknown>;
  signal: AbortSignal | undefined;
}

export type FakeAnswer =
  | { status?: number; json: unknown; headers?: Record<string, string> }
  | { status?: number; text: string; headers?: Record<string, string> }
  | { error: unknown }
  | { hang: true };

export interface FakeFetch {
  fetch: FetchLike;
  requests: RecordedRequest[];
  /** The last request's body. */
  readonly last: RecordedRequest;
  /** Queues answers, used in order; the last one repeats. */
  answer(...answers: FakeAnswer[]): FakeFetch;
}

/** A GraphQL success answer with `data`. */
export const data = (value: Record<string, unknown>): FakeAnswer => ({ json: { data: value } });

export function fakeFetch(...initial: FakeAnswer[]): FakeFetch {
  const queue: FakeAnswer[] = [...initial];
  const requests: RecordedRequest[] = [];
  const fake: FakeFetch = {
    requests,
    get last() {
      const request = requests.at(-1);
      if (request === undefined) throw new Error('no request was sent');
      return request;
    },
    answer(...answers) {
      queue.push(...answers);
      return fake;
    },
    fetch: async (url, init) => {
      requests.push({
        url,
        method: init.method ?? 'GET',
        headers: Object.fromEntries(new Headers(init.headers).entries()),
        body: JSON.parse(String(init.body)) as Record<string, unknown>,
        signal: init.signal ?? undefined,
      });
      const answer = (queue.length > 1 ? queue.shift() : queue[0]) ?? data({});
      if ('error' in answer) throw answer.error;
      if ('hang' in answer) {
        return new Promise<Response>((_resolve, reject) => {
          init.signal?.addEventListener('abort', () => reject(init.signal?.reason));
        });
      }
      const text = 'json' in answer ? JSON.stringify(answer.json) : answer.text;
      return new Response(text, {
        status: answer.status ?? 200,
        headers: { 'content-type': 'json' in answer ? 'application/json' : 'text/html', ...answer.headers },
      });
    },
  };
  return fake;
}
