/**
 * A fake OpenAI upstream over TLS offering HTTP/2 and HTTP/1.1 in ALPN (node:http2 with
 * allowHTTP1), as providers' front doors do: chat completions as JSON or SSE in the real wire
 * format (fake-openai.ts's payloads). It records each request's HTTP version and counts the TLS
 * connections it accepted; streams can be held open after their first event.
 */
import { once } from 'node:events';
import { createSecureServer, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { ThrowawayCertificate } from '../helpers/throwaway-tls.ts';
import { openAiCompletion, openAiStreamEvents, STREAM_PIECES } from './fake-openai.ts';

export interface FakeOpenAiOverTls {
  /** `https://127.0.0.1:<port>` (the base URL is this plus `/v1`). */
  url: string;
  /** Each chat request's HTTP version in arrival order: `2.0` or `1.1`. */
  versions: string[];
  /** TLS connections accepted so far. */
  connections(): number;
  /**
   * From now on, streams stop after their first event until `release()`; resolves once `count`
   * requests in all are held.
   */
  holdStreams(): { held: (count: number) => Promise<void>; release: () => void };
  stop(): Promise<void>;
}

export async function startFakeOpenAiOverTls(certificate: ThrowawayCertificate): Promise<FakeOpenAiOverTls> {
  const versions: string[] = [];
  const sockets = new Set<TLSSocket>();
  let connections = 0;
  let hold: { count: number; waiters: Map<number, () => void>; gate: Promise<void> } | undefined;

  async function stream(response: Http2ServerResponse, events: string[]): Promise<void> {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const [first, ...rest] = events;
    response.write(first ?? '');
    if (hold !== undefined) {
      hold.count += 1;
      hold.waiters.get(hold.count)?.();
      await hold.gate;
    }
    for (const event of rest) response.write(event);
    response.end();
  }

  const server = createSecureServer({ ...certificate, allowHTTP1: true }, (request, response) => {
    let raw = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      raw += chunk;
    });
    request.once('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end('{"error":{"message":"no route"}}');
        return;
      }
      versions.push(request.httpVersion);
      const body = JSON.parse(raw) as {
        model?: string;
        stream?: boolean;
        stream_options?: { include_usage?: boolean };
      };
      const model = body.model ?? 'unknown';
      if (body.stream !== true) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(openAiCompletion(model)));
        return;
      }
      void stream(
        response,
        openAiStreamEvents(model, STREAM_PIECES, body.stream_options?.include_usage === true),
      );
    });
  });
  server.on('secureConnection', (socket: TLSSocket) => {
    connections += 1;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');

  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    versions,
    connections: () => connections,
    holdStreams() {
      const { promise: gate, resolve: release } = Promise.withResolvers<void>();
      const state = { count: 0, waiters: new Map<number, () => void>(), gate };
      hold = state;
      return {
        held: (count) =>
          new Promise<void>((resolve) => {
            if (state.count >= count) resolve();
            else state.waiters.set(count, resolve);
          }),
        release: () => {
          if (hold === state) hold = undefined;
          release();
        },
      };
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
