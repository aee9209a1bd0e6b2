/**
 * A small round-robin TCP proxy in front of gateway processes, standing in for a Kubernetes Service:
 * like kube-proxy it balances connections, not requests, over the backends in rotation, and like
 * the endpoints controller it takes a backend out of rotation once its /readyz stops answering 200
 * (polled every 100 ms, a fresh connection each time) and puts it back when it does again. It never
 * retries: a backend it cannot reach, or one that drops a connection, is a failure the client sees.
 * A keep-alive client stays on its backend until that backend closes the connection, which is why
 * a draining gateway answers `connection: close`.
 */
import { request } from 'node:http';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';

export interface RoundRobinProxy {
  url: string;
  /** Starts polling a backend (`http://host:port`); it joins the rotation once /readyz answers 200. */
  add(backendUrl: string): void;
  /** Resolves once the backend is in rotation. */
  inRotation(backendUrl: string): Promise<void>;
  /** Resolves once the backend is out of rotation (its /readyz answered anything but 200, or nothing). */
  outOfRotation(backendUrl: string): Promise<void>;
  /** Client connections handed to the backend so far. */
  connectionsTo(backendUrl: string): number;
  close(): Promise<void>;
}

const POLL_INTERVAL_MS = 100;
const POLL_TIMEOUT_MS = 1_000;

interface Backend {
  host: string;
  port: number;
  ready: boolean;
  connections: number;
  timer: NodeJS.Timeout | undefined;
  waiters: { ready: boolean; resolve: () => void }[];
}

/** Whether /readyz answers 200, on a connection of its own (no keep-alive: a probe is not traffic). */
function probe(backend: Backend): Promise<boolean> {
  return new Promise((resolve) => {
    const probeRequest = request(
      { host: backend.host, port: backend.port, path: '/readyz', agent: false, timeout: POLL_TIMEOUT_MS },
      (response) => {
        response.resume();
        resolve(response.statusCode === 200);
      },
    );
    probeRequest.on('timeout', () => probeRequest.destroy());
    probeRequest.on('error', () => resolve(false));
    probeRequest.end();
  });
}

export async function startRoundRobinProxy(backendUrls: readonly string[] = []): Promise<RoundRobinProxy> {
  const backends = new Map<string, Backend>();
  const sockets = new Set<Socket>();
  let closed = false;
  let turn = 0;

  const setReady = (backend: Backend, ready: boolean) => {
    backend.ready = ready;
    backend.waiters = backend.waiters.filter((waiter) => {
      if (waiter.ready !== ready) return true;
      waiter.resolve();
      return false;
    });
  };
  const poll = async (backend: Backend) => {
    const ready = await probe(backend);
    if (closed) return;
    setReady(backend, ready);
    backend.timer = setTimeout(() => void poll(backend), POLL_INTERVAL_MS);
  };
  const backendOf = (url: string): Backend => {
    const backend = backends.get(url);
    if (backend === undefined) throw new Error(`${url} is not a backend of the proxy`);
    return backend;
  };
  const when = (url: string, ready: boolean) => {
    const backend = backendOf(url);
    if (backend.ready === ready) return Promise.resolve();
    return new Promise<void>((resolve) => backend.waiters.push({ ready, resolve }));
  };

  const server: Server = createServer((client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    const rotation = [...backends.values()].filter((backend) => backend.ready);
    const backend = rotation[turn++ % Math.max(rotation.length, 1)];
    if (backend === undefined) {
      client.destroy();
      return;
    }
    backend.connections += 1;
    const upstream = connect(backend.port, backend.host);
    sockets.add(upstream);
    upstream.once('close', () => sockets.delete(upstream));
    // Either side's error or reset ends both: the client sees its connection drop.
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });

  const proxy: RoundRobinProxy = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    add(backendUrl) {
      const { hostname, port } = new URL(backendUrl);
      const backend: Backend = {
        host: hostname,
        port: Number(port),
        ready: false,
        connections: 0,
        timer: undefined,
        waiters: [],
      };
      backends.set(backendUrl, backend);
      void poll(backend);
    },
    inRotation: (url) => when(url, true),
    outOfRotation: (url) => when(url, false),
    connectionsTo: (url) => backendOf(url).connections,
    async close() {
      closed = true;
      for (const backend of backends.values()) clearTimeout(backend.timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  for (const url of backendUrls) proxy.add(url);
  return proxy;
}
