import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { LeanCounter, LeanHistogram } from './lean-metrics.ts';

const BUCKETS = [0.0001, 0.00025, 0.001, 0.005, 0.05, 1, 10];

/** The same metrics twice: prom-client's on one registry, the lean ones on another. */
function pair() {
  const reference = new Registry();
  const lean = new Registry();
  const config = {
    requests: {
      name: 'requests_total',
      help: 'Requests',
      labelNames: ['route', 'status', 'provider'] as const,
    },
    bytes: { name: 'bytes_total', help: 'Bytes, no labels' },
    seconds: {
      name: 'seconds',
      help: 'Seconds',
      labelNames: ['provider', 'route'] as const,
      buckets: BUCKETS,
    },
    plain: { name: 'plain_seconds', help: 'No labels', buckets: BUCKETS },
  };
  return {
    reference,
    lean,
    a: {
      requests: new Counter({
        ...config.requests,
        labelNames: [...config.requests.labelNames],
        registers: [reference],
      }),
      bytes: new Counter({ ...config.bytes, registers: [reference] }),
      seconds: new Histogram({
        ...config.seconds,
        labelNames: [...config.seconds.labelNames],
        registers: [reference],
      }),
      plain: new Histogram({ ...config.plain, registers: [reference] }),
    },
    b: {
      requests: new LeanCounter({ ...config.requests, registers: [lean] }),
      bytes: new LeanCounter({ ...config.bytes, registers: [lean] }),
      seconds: new LeanHistogram({ ...config.seconds, registers: [lean] }),
      plain: new LeanHistogram({ ...config.plain, registers: [lean] }),
    },
  };
}

describe('LeanCounter and LeanHistogram', () => {
  it("expose exactly what prom-client's Counter and Histogram expose for the same updates", async () => {
    const { reference, lean, a, b } = pair();
    expect(await lean.metrics()).toBe(await reference.metrics());
    let seed = 11;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <V>(values: readonly V[]) => values[Math.floor(random() * values.length)] as V;
    for (let step = 0; step < 5000; step += 1) {
      const route = pick(['chat', 'embeddings', 'messages']);
      const provider = pick(['openai', 'anthropic', 'my "quoted"\\provider\n']);
      const status = String(pick([200, 400, 429, 502]));
      // Bounds themselves, between them, below the first and above the last.
      const seconds =
        pick([0, 0.0001, 0.0002, 0.001, 0.003, 0.05, 0.7, 10, 11, 250]) * (random() < 0.5 ? 1 : 1.5);
      const roll = random();
      if (roll < 0.3) {
        a.requests.inc({ route, status, provider });
        b.requests.inc({ route, status, provider });
      } else if (roll < 0.4) {
        const by = Math.floor(random() * 1000);
        a.requests.inc({ route, status, provider }, by);
        b.requests.inc({ route, status, provider }, by);
      } else if (roll < 0.5) {
        a.bytes.inc(1500);
        b.bytes.inc(1500);
      } else if (roll < 0.55) {
        a.bytes.inc();
        b.bytes.inc();
      } else if (roll < 0.9) {
        a.seconds.observe({ provider, route }, seconds);
        b.seconds.observe({ provider, route }, seconds);
      } else {
        a.plain.observe(seconds);
        b.plain.observe(seconds);
      }
    }
    const text = await lean.metrics();
    expect(text).toBe(await reference.metrics());
    expect(text).toContain('seconds_bucket{le="0.0001",provider="openai",route="chat"}');
    expect(await lean.getMetricsAsJSON()).toEqual(await reference.getMetricsAsJSON());

    a.requests.reset();
    b.requests.reset();
    a.bytes.reset();
    b.bytes.reset();
    a.seconds.reset();
    b.seconds.reset();
    expect(await lean.metrics()).toBe(await reference.metrics());
  });

  it('keep label order as first given, like prom-client', async () => {
    const { reference, lean, a, b } = pair();
    a.requests.inc({ provider: 'openai', route: 'chat', status: '200' });
    b.requests.inc({ provider: 'openai', route: 'chat', status: '200' });
    a.requests.inc({ route: 'chat', status: '200', provider: 'openai' });
    b.requests.inc({ route: 'chat', status: '200', provider: 'openai' });
    expect(await lean.metrics()).toBe(await reference.metrics());
    expect(await lean.metrics()).toContain('requests_total{provider="openai",route="chat",status="200"} 2');
  });

  it('refuse labels not declared, values that are not numbers, and a counter going down', () => {
    const { b } = pair();
    expect(() => b.requests.inc({ route: 'chat', tenant: 'x' } as never)).toThrow(/not included/);
    expect(() => b.seconds.observe({ route: 'chat' }, Number.NaN)).toThrow(TypeError);
    expect(() => b.requests.inc({ route: 'chat' }, Number.POSITIVE_INFINITY)).toThrow(TypeError);
    expect(() => b.bytes.inc(-1)).toThrow(/decrease/);
  });

  it('cannot share a name with another metric on a registry', () => {
    const registry = new Registry();
    new LeanCounter({ name: 'taken_total', help: 'x', registers: [registry] });
    expect(() => new Counter({ name: 'taken_total', help: 'y', registers: [registry] })).toThrow(
      /already been registered/,
    );
  });
});
