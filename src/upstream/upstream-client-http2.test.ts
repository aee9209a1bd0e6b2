import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { createSecureServer, type Http2SecureServer, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createThrowawayCertificate, trustCertificate } from '../../test/helpers/throwaway-tls.ts';
import { STREAMS_PER_HTTP2_CONNECTION, UpstreamClient, type UpstreamPoolOptions } from './upstream-client.ts';

const TIMEOUTS = { connectMs: 2000, headersMs: 5000, bodyMs: 5000 };

describe('UpstreamClient: HTTP/2', () => {
  /** A TLS upstream offering h2 and http/1.1 in ALPN, as providers' front doors do. */
  let secure: Http2SecureServer;
  let secureOrigin: string;
  let plain: Server;
  let plainOrigin: string;
  let untrust: () => void = () => {};
  /** Each request's HTTP version, in arrival order. */
  const versions: string[] = [];
  /** TLS connections accepted. */
  let connections = 0;
  const sockets = new Set<TLSSocket>();
  /** `/held` answers (their requests read whole), waiting for `release()`. */
  const held: Http2ServerResponse[] = [];
  let arrivals = 0;
  const waiting = new Map<number, () => void>();
  /** Resolves once `count` requests to `/held` in all are held by the TLS upstream. */
  const arrived = (count: number) =>
    new Promise<void>((resolve) => {
      if (arrivals >= count) resolve();
      else waiting.set(count, resolve);
    });
  const release = () => {
    for (const response of held.splice(0)) response.end('ok');
  };

  beforeAll(async () => {
    const certificate = createThrowawayCertificate();
    untrust = trustCertificate(certificate.cert);
    secure = createSecureServer({ ...certificate, allowHTTP1: true }, (request, response) => {
      versions.push(request.httpVersion);
      request.resume();
      request.once('end', () => {
        if (request.url !== '/held') {
          response.end(request.httpVersion);
          return;
        }
        held.push(response);
        arrivals += 1;
        waiting.get(arrivals)?.();
      });
    });
    secure.on('secureConnection', (socket: TLSSocket) => {
      connections += 1;
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    secure.listen(0, '127.0.0.1');
    await once(secure, 'listening');
    secureOrigin = `https://127.0.0.1:${(secure.address() as AddressInfo).port}`;
    plain = createServer((request, response) => {
      request.resume();
      request.once('end', () => response.end(request.httpVersion));
    });
    plain.listen(0, '127.0.0.1');
    await once(plain, 'listening');
    plainOrigin = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    untrust();
    for (const socket of sockets) socket.destroy();
    plain?.closeAllConnections();
    await Promise.all([
      new Promise((resolve) => secure?.close(resolve)),
      new Promise((resolve) => plain?.close(resolve)),
    ]);
  });

  /** Sends `count` requests to `/held` at once and waits until the upstream holds them all. */
  async function hold(client: UpstreamClient, count: number) {
    const before = arrivals;
    const answers = Array.from({ length: count }, () =>
      client.send({ provider: 'test', url: `${secureOrigin}/held`, headers: {}, body: '{}' }),
    );
    await arrived(before + count);
    return answers;
  }

  async function withClient(options: UpstreamPoolOptions, use: (client: UpstreamClient) => Promise<void>) {
    const client = new UpstreamClient(TIMEOUTS, options);
    try {
      await use(client);
    } finally {
      // Whatever a failed expectation left held, so that closing does not wait for its timeout.
      release();
      await client.close();
    }
  }

  it('speaks HTTP/2 to a TLS upstream that offers it when allowed (the default), many requests on one connection', async () => {
    for (const options of [{ http2: true }, {}]) {
      await withClient(options, async (client) => {
        const [versionsBefore, connectionsBefore] = [versions.length, connections];
        const answers = await hold(client, 3);
        expect(versions.slice(versionsBefore)).toEqual(['2.0', '2.0', '2.0']);
        expect(connections - connectionsBefore).toBe(1);
        expect(client.stats()).toEqual([{ origin: secureOrigin, connected: 1, running: 3, queued: 0 }]);
        release();
        for (const answer of answers) expect(await (await answer).body.text()).toBe('ok');
        expect(client.stats()).toEqual([{ origin: secureOrigin, connected: 1, running: 0, queued: 0 }]);
      });
    }
  });

  it('speaks HTTP/1.1 to the same upstream when HTTP/2 is off, a connection per request', async () => {
    await withClient({ http2: false }, async (client) => {
      const [versionsBefore, connectionsBefore] = [versions.length, connections];
      const answers = await hold(client, 3);
      expect(versions.slice(versionsBefore)).toEqual(['1.1', '1.1', '1.1']);
      expect(connections - connectionsBefore).toBe(3);
      expect(client.stats()).toEqual([{ origin: secureOrigin, connected: 3, running: 3, queued: 0 }]);
      release();
      for (const answer of answers) expect(await (await answer).body.text()).toBe('ok');
    });
  });

  it('queues requests past GATEWAY_UPSTREAM_CONNECTIONS connections of STREAMS_PER_HTTP2_CONNECTION each', async () => {
    await withClient({ http2: true, connectionsPerOrigin: 2 }, async (client) => {
      const carried = 2 * STREAMS_PER_HTTP2_CONNECTION;
      const [arrivalsBefore, connectionsBefore] = [arrivals, connections];
      const answers = Array.from({ length: carried + 1 }, () =>
        client.send({ provider: 'test', url: `${secureOrigin}/held`, headers: {}, body: '{}' }),
      );
      await arrived(arrivalsBefore + carried);
      expect(connections - connectionsBefore).toBe(2);
      expect(client.stats()).toEqual([{ origin: secureOrigin, connected: 2, running: carried, queued: 1 }]);
      // The one waiting goes out once a stream ends.
      const last = arrived(arrivalsBefore + carried + 1);
      release();
      for (const answer of answers.slice(0, carried)) expect(await (await answer).body.text()).toBe('ok');
      await last;
      expect(client.stats()).toEqual([{ origin: secureOrigin, connected: 2, running: 1, queued: 0 }]);
      release();
      expect(await (await answers[carried])?.body.text()).toBe('ok');
    });
  });

  it('speaks HTTP/1.1 to a plain-HTTP upstream even when HTTP/2 is allowed', async () => {
    await withClient({ http2: true }, async (client) => {
      const answer = await client.send({ provider: 'test', url: `${plainOrigin}/`, headers: {}, body: '{}' });
      expect(await answer.body.text()).toBe('1.1');
    });
  });
});
