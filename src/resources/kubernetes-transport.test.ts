import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeTransport } from './kubernetes-transport.ts';

/**
 * Closing the transport while requests are in flight: each caller's promise rejects, and nothing
 * escapes as an uncaught exception (vitest fails the run on one). An operator stops this way with
 * its watches open and a list or a write under way.
 */
describe('KubeTransport.close with requests in flight', () => {
  let server: Server;
  let transport: KubeTransport;
  const held: ServerResponse[] = [];
  let arrived: (path: string) => void;
  let arrivals: Map<string, Promise<void>>;

  beforeEach(async () => {
    arrivals = new Map();
    const waiting = new Map<string, () => void>();
    for (const path of ['/watch', '/headers-only', '/half-body', '/no-answer', '/write']) {
      arrivals.set(path, new Promise<void>((resolve) => waiting.set(path, resolve)));
    }
    arrived = (path) => waiting.get(path)?.();
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      held.push(response);
      if (path === '/watch' || path === '/half-body') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write(path === '/watch' ? '{"type":"ADDED","object":{}}\n' : '{"items": [');
      } else if (path === '/headers-only') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.flushHeaders();
      }
      arrived(path);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [
        {
          name: 'fake',
          server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          skipTLSVerify: true,
        },
      ],
      users: [{ name: 'fake', token: 'fake-token' }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'fake' }],
      currentContext: 'fake',
    });
    transport = new KubeTransport(kubeConfig);
  });
  afterEach(async () => {
    for (const response of held.splice(0)) response.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('rejects a watch, a request without an answer, one with headers only, one half read and a write', async () => {
    const lines: string[] = [];
    const watch = transport.stream(
      '/watch',
      {},
      new AbortController().signal,
      (line) => lines.push(line),
      () => {},
    );
    const noAnswer = transport.request({ method: 'GET', path: '/no-answer' });
    const headersOnly = transport.request({ method: 'GET', path: '/headers-only' });
    const halfBody = transport.request({ method: 'GET', path: '/half-body' });
    const write = transport.request({ method: 'PATCH', path: '/write', body: { data: 'x'.repeat(200_000) } });
    for (const promise of [watch, noAnswer, headersOnly, halfBody, write]) promise.catch(() => {});
    await Promise.all(arrivals.values());
    await expect.poll(() => lines.length).toBe(1);

    await transport.close();

    await expect(watch).rejects.toThrow();
    await expect(noAnswer).rejects.toThrow();
    await expect(headersOnly).rejects.toThrow();
    await expect(halfBody).rejects.toThrow();
    await expect(write).rejects.toThrow();
    await expect(transport.request({ method: 'GET', path: '/no-answer' })).rejects.toThrow(
      'the Kubernetes transport is closed',
    );
  });
});
