import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createThrowawayCertificate } from '../../test/helpers/throwaway-tls.ts';
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

/**
 * The API server offers HTTP/2 in ALPN and undici 8 would take it; the transport asks for HTTP/1.1
 * only (see the module comment), and a request made as close() starts is refused as closed.
 */
describe('KubeTransport over TLS to a server that offers HTTP/2', () => {
  const certificate = createThrowawayCertificate();
  let server: Http2SecureServer;
  let transport: KubeTransport;
  const versions: string[] = [];
  const sockets: Socket[] = [];
  let watchArrived: Promise<void>;

  beforeEach(async () => {
    versions.length = 0;
    let arrived: () => void = () => {};
    watchArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    server = createSecureServer({ ...certificate, allowHTTP1: true }, (request, response) => {
      versions.push(request.httpVersion);
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      response.writeHead(200, { 'content-type': 'application/json' });
      sockets.push(request.socket);
      if (path === '/watch') {
        response.write('{"type":"ADDED","object":{}}\n');
        arrived();
      } else {
        response.end('{"kind":"Status","status":"Success"}');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [
        {
          name: 'tls',
          server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
          caData: Buffer.from(certificate.cert).toString('base64'),
        },
      ],
      users: [{ name: 'tls', token: 'fake-token' }],
      contexts: [{ name: 'tls', cluster: 'tls', user: 'tls' }],
      currentContext: 'tls',
    });
    transport = new KubeTransport(kubeConfig);
  });
  afterEach(async () => {
    await transport.close();
    for (const socket of sockets.splice(0)) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('speaks HTTP/1.1', async () => {
    await expect(transport.request({ method: 'GET', path: '/api' })).resolves.toEqual({
      kind: 'Status',
      status: 'Success',
    });
    expect(versions).toEqual(['1.1']);
  });

  it('has settled every request and watch in flight by the time close resolves', async () => {
    const settled: string[] = [];
    const watch = transport.stream(
      '/watch',
      {},
      new AbortController().signal,
      () => {},
      () => {},
    );
    watch.catch(() => settled.push('watch'));
    await watchArrived;
    // Started in the same tick as close: it is still reading its credentials when close runs.
    const late = transport.request({ method: 'GET', path: '/api' });
    late.catch(() => settled.push('late'));

    await transport.close();

    expect(settled.sort()).toEqual(['late', 'watch']);
    await expect(late).rejects.toThrow('the Kubernetes transport is closed');
  });
});
