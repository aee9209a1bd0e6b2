import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type InformerEvent, KubeInformer } from './kubernetes-informer.ts';
import { KubeTransport } from './kubernetes-transport.ts';

interface Thing {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
  value?: number;
}

type WatchScript = (response: ServerResponse, query: URLSearchParams) => void;

/** A scripted stand-in for the API server's list and watch of one collection. */
class FakeCollection {
  items: Thing[] = [];
  resourceVersion = 10;
  readonly requests: { watch: boolean; query: URLSearchParams; at: number }[] = [];
  readonly watchScripts: WatchScript[] = [];
  readonly openWatches = new Set<ServerResponse>();
  server: Server;
  port = 0;

  constructor() {
    this.server = createServer((request, response) => this.#handle(request, response));
  }

  /** Listens on a free port the first time, on the same port after close() (the server is back). */
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return `http://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    for (const response of this.openWatches) response.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  put(name: string, value: number): Thing {
    this.resourceVersion += 1;
    const thing = {
      metadata: { name, namespace: 'ns', resourceVersion: String(this.resourceVersion) },
      value,
    };
    this.items = [...this.items.filter((item) => item.metadata.name !== name), thing];
    return thing;
  }

  watches(): URLSearchParams[] {
    return this.requests.filter((request) => request.watch).map((request) => request.query);
  }

  /** Milliseconds between consecutive watch requests. */
  watchGaps(): number[] {
    const times = this.requests.filter((request) => request.watch).map((request) => request.at);
    return times.slice(1).map((at, index) => at - (times[index] ?? at));
  }

  lists(): number {
    return this.requests.filter((request) => !request.watch).length;
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://fake');
    const watch = url.searchParams.get('watch') === 'true';
    this.requests.push({ watch, query: url.searchParams, at: performance.now() });
    if (!watch) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ metadata: { resourceVersion: String(this.resourceVersion) }, items: this.items }),
      );
      return;
    }
    const script = this.watchScripts.shift();
    if (!script) {
      // Default: a watch that stays open and quiet (with a heartbeat-free stream).
      response.writeHead(200, { 'content-type': 'application/json' });
      response.flushHeaders();
      this.openWatches.add(response);
      response.on('close', () => this.openWatches.delete(response));
      return;
    }
    script(response, url.searchParams);
  }
}

function event(type: string, object: object): string {
  return `${JSON.stringify({ type, object })}\n`;
}

function streamEvents(...lines: string[]): WatchScript {
  return (response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(lines.join(''));
  };
}

function openStream(...lines: string[]): WatchScript {
  return (response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write(lines.join(''));
  };
}

function status(code: number): WatchScript {
  return (response) => {
    response.writeHead(code, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        kind: 'Status',
        code,
        reason: code === 410 ? 'Expired' : 'InternalError',
        message: `fake ${code}`,
      }),
    );
  };
}

describe('KubeInformer', () => {
  let fake: FakeCollection;
  let transport: KubeTransport;
  let informer: KubeInformer<Thing> | undefined;
  let events: InformerEvent<Thing>[];

  beforeEach(async () => {
    fake = new FakeCollection();
    const server = await fake.listen();
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'fake', server, skipTLSVerify: true }],
      users: [{ name: 'fake', token: 'fake-token' }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'fake' }],
      currentContext: 'fake',
    });
    transport = new KubeTransport(kubeConfig);
    events = [];
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await informer?.stop();
    informer = undefined;
    await transport.close();
    await fake.close();
  });

  const start = (
    timings: ConstructorParameters<typeof KubeInformer>[0]['timings'] = {},
    keep?: (thing: Thing) => boolean,
    selectors: { labelSelector?: string; fieldSelector?: string } = {},
  ) => {
    informer = new KubeInformer<Thing>({
      transport,
      name: 'Thing',
      path: '/apis/example.io/v1/things',
      keep,
      ...selectors,
      timings: { backoffBaseMs: 20, backoffMaxMs: 200, ...timings },
    });
    informer.on((change) => events.push(change));
    informer.start();
    return informer;
  };
  const summary = () => events.map((change) => `${change.type}:${change.object.metadata.name}`);

  it('lists, then watches from the list resourceVersion with bookmarks, keeping the cache current', async () => {
    fake.put('a', 1);
    const b = fake.put('b', 2);
    fake.watchScripts.push(
      openStream(
        event('MODIFIED', { ...b, metadata: { ...b.metadata, resourceVersion: '20' }, value: 3 }),
        event('ADDED', { metadata: { name: 'c', namespace: 'ns', resourceVersion: '21' } }),
        event('DELETED', { metadata: { name: 'a', namespace: 'ns', resourceVersion: '22' } }),
        event('BOOKMARK', { metadata: { resourceVersion: '30' } }),
      ),
    );
    const running = start();
    await running.whenSynced();
    await vi.waitFor(() =>
      expect(summary()).toEqual(['added:a', 'added:b', 'modified:b', 'added:c', 'deleted:a']),
    );
    const [watch] = fake.watches();
    expect(watch?.get('resourceVersion')).toBe('12');
    expect(watch?.get('allowWatchBookmarks')).toBe('true');
    expect(Number(watch?.get('timeoutSeconds'))).toBeGreaterThan(0);
    expect(running.get('b', 'ns')?.value).toBe(3);
    expect(
      running
        .list()
        .map((thing) => thing.metadata.name)
        .sort(),
    ).toEqual(['b', 'c']);
    expect(Object.isFrozen(running.get('b', 'ns'))).toBe(true);
  });

  it('re-watches from the last resourceVersion (bookmark included) when the server ends a watch', async () => {
    fake.watchScripts.push(streamEvents(event('BOOKMARK', { metadata: { resourceVersion: '55' } })));
    start();
    await vi.waitFor(() => expect(fake.watches()).toHaveLength(2));
    expect(fake.watches()[1]?.get('resourceVersion')).toBe('55');
    expect(fake.lists()).toBe(1);
  });

  it('relists on 410 Gone and emits what changed meanwhile, deletions included', async () => {
    fake.put('a', 1);
    fake.put('b', 1);
    fake.watchScripts.push(status(410));
    const running = start();
    await running.whenSynced();
    fake.items = fake.items.filter((item) => item.metadata.name !== 'a');
    fake.put('c', 1);
    await vi.waitFor(() => expect(summary()).toEqual(['added:a', 'added:b', 'added:c', 'deleted:a']));
    expect(fake.lists()).toBe(2);
  });

  it('relists on an in-stream ERROR event with code 410', async () => {
    fake.watchScripts.push(
      openStream(event('ERROR', { kind: 'Status', code: 410, message: 'too old resource version' })),
    );
    start();
    await vi.waitFor(() => expect(fake.lists()).toBe(2));
  });

  it('retries failures with growing backoff, from the last resourceVersion, without relisting', async () => {
    // Jitter takes 50 to 100 % of the delay; at its top the delays are exactly 100, 200, then the
    // 300 ms cap.
    vi.spyOn(Math, 'random').mockReturnValue(1);
    fake.watchScripts.push(status(500), status(500), status(500), status(500));
    const running = start({ backoffBaseMs: 100, backoffMaxMs: 300 });
    await vi.waitFor(() => expect(fake.watches()).toHaveLength(5), { timeout: 5_000 });
    const expected = [100, 200, 300, 300];
    const gaps = fake.watchGaps();
    expect(gaps).toHaveLength(expected.length);
    gaps.forEach((gap, index) => {
      const delay = expected[index] ?? 0;
      // Not before the delay (timers may round a millisecond early), nor much after it.
      expect(gap, `retry ${index + 1}`).toBeGreaterThanOrEqual(delay - 2);
      expect(gap, `retry ${index + 1}`).toBeLessThan(delay + 90);
    });
    expect(fake.lists()).toBe(1);
    expect(new Set(fake.watches().map((query) => query.get('resourceVersion')))).toEqual(new Set(['10']));
    // The fifth watch is healthy and open, but has delivered nothing yet: the count stands.
    expect(running.health.failures).toBe(4);
  });

  it('keeps retrying while the server is down, then recovers', async () => {
    fake.put('a', 1);
    await fake.close();
    const running = start({ backoffBaseMs: 10, backoffMaxMs: 50 });
    await vi.waitFor(() => expect(running.health.failures).toBeGreaterThanOrEqual(3));
    expect(running.synced).toBe(false);
    expect(fake.requests).toEqual([]);
    // The server comes back on the same address.
    await fake.listen();
    await running.whenSynced();
    expect(running.get('a', 'ns')?.value).toBe(1);
    expect(summary()).toEqual(['added:a']);
    expect(running.health.failures).toBe(0);
    await vi.waitFor(() => expect(fake.watches()).toHaveLength(1));
  });

  it('restarts a watch that stays silent past the watchdog limit', async () => {
    start({ silenceMs: 200 });
    await vi.waitFor(() => expect(fake.watches().length).toBeGreaterThanOrEqual(2), { timeout: 3_000 });
    expect(fake.lists()).toBe(1);
  });

  it('relists periodically', async () => {
    start({ relistIntervalMs: 200 });
    await vi.waitFor(() => expect(fake.lists()).toBeGreaterThanOrEqual(2), { timeout: 3_000 });
  });

  it('sends its label and field selectors with every list and watch, so the server filters', async () => {
    fake.watchScripts.push(streamEvents(event('BOOKMARK', { metadata: { resourceVersion: '55' } })));
    const selectors = { labelSelector: 'app=x', fieldSelector: 'type!=a/b,type!=c' };
    start({ relistIntervalMs: 200 }, undefined, selectors);
    await vi.waitFor(() => {
      expect(fake.lists()).toBeGreaterThanOrEqual(2);
      expect(fake.watches().length).toBeGreaterThanOrEqual(2);
    });
    for (const { query } of fake.requests) {
      expect(query.get('labelSelector')).toBe('app=x');
      expect(query.get('fieldSelector')).toBe('type!=a/b,type!=c');
    }
  });

  it('caches only what `keep` accepts, and drops an object that stops matching', async () => {
    fake.put('kept', 1);
    fake.put('dropped', 1);
    fake.watchScripts.push(
      openStream(
        event('MODIFIED', { metadata: { name: 'kept', namespace: 'ns', resourceVersion: '40' }, value: -1 }),
      ),
    );
    const running = start({}, (thing) => (thing.value ?? 0) >= 0 && thing.metadata.name !== 'dropped');
    await vi.waitFor(() => expect(summary()).toEqual(['added:kept', 'deleted:kept']));
    expect(running.list()).toEqual([]);
  });
});
