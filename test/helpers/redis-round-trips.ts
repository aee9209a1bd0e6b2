/**
 * A TCP proxy in front of a redis-server that counts round trips: per client connection, every
 * time the client sends after the server last answered (or first) is one. Commands written
 * together (a pipeline, ioredis's auto-pipelining of one tick, a script) are one round trip;
 * a command sent only after the previous answer arrived is another. Subscriber connections send
 * once and then only receive, so they count one each.
 */

import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface RoundTripProxy {
  /** `redis://127.0.0.1:<port>` of the proxy. */
  url: string;
  /** Round trips counted since the last reset. */
  roundTrips(): number;
  /** Bytes the clients have sent since the last reset (changes whenever anything is sent). */
  sentBytes(): number;
  reset(): void;
  /** Resolves once no client has sent anything for `quietMs` (work finishing after a response). */
  whenIdle(quietMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startRoundTripProxy(target: { host: string; port: number }): Promise<RoundTripProxy> {
  let roundTrips = 0;
  let sentBytes = 0;
  let lastSentAt = performance.now();
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client);
    sockets.add(upstream);
    // Whether the server has answered since the client last sent: the next send starts a round trip.
    let answered = true;
    client.on('data', (chunk: Buffer) => {
      sentBytes += chunk.length;
      lastSentAt = performance.now();
      if (answered) roundTrips += 1;
      answered = false;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      answered = true;
      client.write(chunk);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', close);
    upstream.on('close', close);
    client.on('error', close);
    upstream.on('error', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    roundTrips: () => roundTrips,
    sentBytes: () => sentBytes,
    reset: () => {
      roundTrips = 0;
      sentBytes = 0;
    },
    whenIdle: async (quietMs = 100) => {
      for (;;) {
        const quietFor = performance.now() - lastSentAt;
        if (quietFor >= quietMs) return;
        await new Promise((resolve) => setTimeout(resolve, quietMs - quietFor));
      }
    },
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
