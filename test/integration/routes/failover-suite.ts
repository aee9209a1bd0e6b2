/**
 * Model routes on the request path (issue #25): failover inside one request on every kind of
 * failure, what is never retried, Retry-After, weights, leastBusy, and the circuit breaker. Defined
 * once, run on the memory stores and on a real Redis.
 */
import type { ServerResponse } from 'node:http';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson } from '../../fakes/fake-server.ts';
import {
  failWith,
  metricValue,
  type RouteBed,
  resetConnection,
  routeHeaders,
  startRouteBed,
  target,
} from './route-bed.ts';

/** Holds the answer until released: the request stays in flight upstream meanwhile. */
function held(release: Promise<void>) {
  return async (request: { body: unknown }, response: ServerResponse) => {
    await release;
    const model = (request.body as { model?: string }).model ?? 'held';
    sendJson(response, 200, {
      id: 'held',
      object: 'chat.completion',
      created: 1,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'held' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  };
}

export function describeFailover(name: string, env: () => Record<string, string> | undefined): void {
  describe.runIf(env() !== undefined)(`model routes: failover (${name})`, () => {
    let bed: RouteBed;
    let routeCount = 0;
    /** A route name no other test uses (circuits are per route). */
    const fresh = () => `failover-${++routeCount}`;

    beforeAll(async () => {
      bed = await startRouteBed(env() ?? {});
    });
    afterAll(async () => {
      await bed?.stop();
    });

    it('fails over inside one request on a 503, and says so in its headers', async () => {
      const model = fresh();
      await bed.putRoute(model, {
        targets: [target('openai/gpt-4o'), target('groq/llama-3.1-8b-instant', { priority: 1 })],
      });
      bed.openai.overrideNext(failWith(503));
      const before = bed.groq.requests.length;
      const response = await bed.chat(model);
      expect(response.status).toBe(200);
      expect(routeHeaders(response)).toEqual({
        route: model,
        target: 'groq/llama-3.1-8b-instant',
        attempts: '2',
      });
      const body = (await response.json()) as { choices: { message: { content: string } }[] };
      expect(body.choices[0]?.message.content).toContain('fake OpenAI');
      expect(bed.groq.requests.length).toBe(before + 1);
      expect((bed.groq.requests.at(-1)?.body as { model?: string } | undefined)?.model).toBe(
        'llama-3.1-8b-instant',
      );
    });

    it('fails over on 429, 500, 502, 504 and 529, on a reset and on a refused connection', async () => {
      for (const failure of [
        failWith(429),
        failWith(500),
        failWith(502),
        failWith(504),
        failWith(529),
        resetConnection,
      ]) {
        const model = fresh();
        await bed.putRoute(model, {
          targets: [target('openai/gpt-4o-mini'), target('groq/llama-3.1-8b-instant', { priority: 1 })],
        });
        bed.openai.overrideNext(failure);
        const response = await bed.chat(model);
        expect(response.status).toBe(200);
        expect(routeHeaders(response).attempts).toBe('2');
      }
      const refused = fresh();
      await bed.putRoute(refused, {
        targets: [target('mistral/mistral-small-latest'), target('openai/gpt-4o-mini', { priority: 1 })],
      });
      const started = performance.now();
      const response = await bed.chat(refused);
      expect(response.status).toBe(200);
      expect(routeHeaders(response)).toMatchObject({ target: 'openai/gpt-4o-mini', attempts: '2' });
      // A refused connection costs no backoff: the next target is tried at once.
      expect(performance.now() - started).toBeLessThan(2000);
    });

    it('fails over across every pair of API shapes, JSON and streams, for OpenAI and Anthropic clients', async () => {
      const shapes = {
        openai: { model: 'openai/gpt-4o-mini', fake: () => bed.openai },
        anthropic: { model: 'anthropic/claude-3-5-haiku-latest', fake: () => bed.anthropic },
        gemini: { model: 'gemini/gemini-2.5-flash', fake: () => bed.gemini },
      } as const;
      const names = Object.keys(shapes) as (keyof typeof shapes)[];
      for (const client of ['openai', 'anthropic'] as const) {
        for (const failing of names) {
          for (const serving of names.filter((shape) => shape !== failing)) {
            const model = fresh();
            await bed.putRoute(model, {
              targets: [target(shapes[failing].model), target(shapes[serving].model, { priority: 1 })],
            });
            for (const stream of [false, true]) {
              shapes[failing].fake().overrideNext(failWith(503));
              const servingBefore = shapes[serving].fake().requests.length;
              const response =
                client === 'openai'
                  ? await bed.chat(model, { stream })
                  : await bed.messages(model, { stream });
              const where = `${client} client, ${failing} -> ${serving}, stream ${stream}`;
              expect(response.status, where).toBe(200);
              expect(routeHeaders(response), where).toEqual({
                route: model,
                target: shapes[serving].model,
                attempts: '2',
              });
              expect(shapes[serving].fake().requests.length, where).toBe(servingBefore + 1);
              const text = await response.text();
              if (!stream) {
                const body = JSON.parse(text) as { choices?: unknown[]; content?: unknown[] };
                expect(client === 'openai' ? body.choices : body.content, where).toHaveLength(1);
              } else if (client === 'openai') expect(text, where).toContain('data: [DONE]');
              else expect(text, where).toContain('event: message_stop');
              // The gateway's cache declarations never reach a provider, on any attempt.
              expect(JSON.stringify(shapes[serving].fake().requests.at(-1)?.body)).not.toContain(
                'x-service-cache',
              );
            }
          }
        }
      }
    });

    it('never retries a 400: the client gets it, and no other target is called', async () => {
      const model = fresh();
      await bed.putRoute(model, {
        targets: [target('openai/gpt-4o-mini'), target('groq/llama-3.1-8b-instant', { priority: 1 })],
      });
      bed.openai.overrideNext(failWith(400));
      const before = bed.groq.requests.length;
      const response = await bed.chat(model);
      expect(response.status).toBe(400);
      expect(routeHeaders(response)).toEqual({ route: model, target: 'openai/gpt-4o-mini', attempts: '1' });
      expect(bed.groq.requests.length).toBe(before);
    });

    it('moves on from a 401, 403 or 404 to another target, never trying the same one again', async () => {
      for (const status of [401, 403, 404]) {
        const model = fresh();
        await bed.putRoute(model, {
          targets: [target('openai/gpt-4o-mini'), target('groq/llama-3.1-8b-instant', { priority: 1 })],
        });
        bed.openai.overrideNext(failWith(status));
        const response = await bed.chat(model);
        expect(response.status).toBe(200);
        expect(routeHeaders(response)).toMatchObject({ target: 'groq/llama-3.1-8b-instant', attempts: '2' });
      }
      const alone = fresh();
      await bed.putRoute(alone, { targets: [target('openai/gpt-4o-mini')] });
      bed.openai.overrideNext(failWith(404));
      const before = bed.openai.requests.length;
      const response = await bed.chat(alone);
      expect(response.status).toBe(404);
      expect(routeHeaders(response).attempts).toBe('1');
      expect(bed.openai.requests.length).toBe(before + 1);
    });

    it('retries a stream until its first byte, and never after it', async () => {
      const model = fresh();
      await bed.putRoute(model, {
        targets: [target('openai/gpt-4o-mini'), target('groq/llama-3.1-8b-instant', { priority: 1 })],
      });
      // The head, then the connection dropped before any event: nothing reached the client.
      bed.openai.overrideNext((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.flushHeaders();
        setImmediate(() => response.socket?.destroy());
      });
      const retried = await bed.chat(model, { stream: true });
      expect(retried.status).toBe(200);
      expect(routeHeaders(retried).attempts).toBe('2');
      expect(await retried.text()).toContain('data: [DONE]');

      // One event out, then the drop: the stream ends with an error event, nothing retried.
      const before = bed.groq.requests.length;
      bed.openai.overrideNext((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(
          `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content: 'partial' }, finish_reason: null }] })}\n\n`,
        );
        setTimeout(() => response.socket?.destroy(), 20);
      });
      const cut = await bed.chat(model, { stream: true });
      expect(cut.status).toBe(200);
      expect(routeHeaders(cut)).toMatchObject({ target: 'openai/gpt-4o-mini', attempts: '1' });
      const text = await cut.text();
      expect(text).toContain('partial');
      expect(text).toContain('"error"');
      expect(text).not.toContain('[DONE]');
      expect(bed.groq.requests.length).toBe(before);
    });

    it('gives up on a silent target after firstByteTimeoutMs, JSON and a stream whose first byte is slow', async () => {
      const model = fresh();
      await bed.putRoute(model, {
        firstByteTimeoutMs: 300,
        targets: [target('openai/gpt-4o-mini'), target('groq/llama-3.1-8b-instant', { priority: 1 })],
      });
      // Silent: the request is taken and never answered.
      bed.openai.overrideNext(() => {});
      let started = performance.now();
      const silent = await bed.chat(model);
      let elapsed = performance.now() - started;
      expect(silent.status).toBe(200);
      expect(routeHeaders(silent)).toMatchObject({ target: 'groq/llama-3.1-8b-instant', attempts: '2' });
      expect(elapsed).toBeGreaterThanOrEqual(290);
      expect(elapsed).toBeLessThan(3000);
      // A stream's head at once, its first event too late.
      bed.openai.overrideNext((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.flushHeaders();
        setTimeout(() => response.destroyed || response.end('data: [DONE]\n\n'), 2000);
      });
      started = performance.now();
      const slow = await bed.chat(model, { stream: true });
      elapsed = performance.now() - started;
      expect(routeHeaders(slow)).toMatchObject({ target: 'groq/llama-3.1-8b-instant', attempts: '2' });
      expect(await slow.text()).toContain('data: [DONE]');
      expect(elapsed).toBeGreaterThanOrEqual(290);
      expect(elapsed).toBeLessThan(2000);
      // A first byte in time is served, however long the rest takes.
      bed.openai.overrideNext(async (request, response) => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        sendJson(response, 200, {
          id: 'slow',
          object: 'chat.completion',
          created: 1,
          model: (request.body as { model: string }).model,
          choices: [{ index: 0, message: { role: 'assistant', content: 'in time' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        });
      });
      const inTime = await bed.chat(model);
      expect(routeHeaders(inTime)).toMatchObject({ target: 'openai/gpt-4o-mini', attempts: '1' });
    });

    it("honours a target's Retry-After before trying it again, up to maxBackoffMs", async () => {
      const model = fresh();
      await bed.putRoute(model, { targets: [target('openai/gpt-4o-mini')] });
      bed.openai.overrideNext(failWith(429, { 'retry-after': '1' }));
      let started = performance.now();
      const waited = await bed.chat(model);
      expect(waited.status).toBe(200);
      expect(routeHeaders(waited).attempts).toBe('2');
      expect(performance.now() - started).toBeGreaterThanOrEqual(990);

      const capped = fresh();
      await bed.putRoute(capped, {
        targets: [target('openai/gpt-4o-mini')],
        retry: { maxAttempts: 2, on: ['rateLimited'], backoffMs: 10, maxBackoffMs: 200 },
      });
      bed.openai.overrideNext(failWith(429, { 'retry-after': '30' }));
      started = performance.now();
      const short = await bed.chat(capped);
      const elapsed = performance.now() - started;
      expect(short.status).toBe(200);
      expect(elapsed).toBeGreaterThanOrEqual(190);
      expect(elapsed).toBeLessThan(5000);
      // Not in retry.on: answered as it is.
      bed.openai.overrideNext(failWith(503));
      const unretried = await bed.chat(capped);
      expect(unretried.status).toBe(503);
      expect(routeHeaders(unretried).attempts).toBe('1');
    });

    it('stops at maxAttempts, answering the last failure', async () => {
      const model = fresh();
      await bed.putRoute(model, {
        targets: [
          target('openai/gpt-4o-mini'),
          target('groq/llama-3.1-8b-instant'),
          target('anthropic/claude-3-5-haiku-latest', { priority: 1 }),
        ],
        retry: { maxAttempts: 2, on: ['serverError'], backoffMs: 10, maxBackoffMs: 100 },
      });
      bed.openai.overrideNext(failWith(502));
      bed.groq.overrideNext(failWith(502));
      const anthropicBefore = bed.anthropic.requests.length;
      const response = await bed.chat(model);
      expect(response.status).toBe(502);
      expect(routeHeaders(response).attempts).toBe('2');
      expect(bed.anthropic.requests.length).toBe(anthropicBefore);
    });

    it('honours weights within statistical bounds (seeded)', async () => {
      const model = fresh();
      await bed.putRoute(model, {
        targets: [
          target('openai/gpt-4o-mini', { weight: 3 }),
          target('groq/llama-3.1-8b-instant', { weight: 1 }),
        ],
      });
      const before = bed.openai.requests.length;
      const total = 200;
      for (let index = 0; index < total; index += 1) expect((await bed.chat(model)).status).toBe(200);
      const toOpenAi = bed.openai.requests.length - before;
      // 150 expected; about 4 standard deviations (6.1 each) either side.
      expect(toOpenAi).toBeGreaterThan(125);
      expect(toOpenAi).toBeLessThan(175);
    });

    it('with leastBusy, spreads concurrent requests by what each target has in flight', async () => {
      const model = fresh();
      await bed.putRoute(model, {
        strategy: 'leastBusy',
        targets: [target('openai/gpt-4o-mini'), target('groq/llama-3.1-8b-instant')],
      });
      const { promise: release, resolve } = Promise.withResolvers<void>();
      for (let index = 0; index < 6; index += 1) {
        bed.openai.overrideNext(held(release));
        bed.groq.overrideNext(held(release));
      }
      const openaiBefore = bed.openai.requests.length;
      const groqBefore = bed.groq.requests.length;
      const answers = Array.from({ length: 6 }, () => bed.chat(model));
      await expect
        .poll(() => bed.openai.requests.length - openaiBefore + bed.groq.requests.length - groqBefore)
        .toBe(6);
      expect(bed.openai.requests.length - openaiBefore).toBe(3);
      expect(bed.groq.requests.length - groqBefore).toBe(3);
      resolve();
      for (const answer of await Promise.all(answers)) expect(answer.status).toBe(200);
      // The unused overrides are left for nobody: drain them with plain requests.
      for (let index = 0; index < 3; index += 1) {
        await (await bed.chat('openai/gpt-4o-mini')).text();
        await (await bed.chat('groq/llama-3.1-8b-instant')).text();
      }
    });

    it('opens a circuit after consecutiveFailures, probes it once (half-open), and closes it', async () => {
      const model = fresh();
      await bed.putRoute(model, {
        circuitBreaker: { consecutiveFailures: 2, openSeconds: 1 },
        targets: [target('openai/gpt-4o-mini'), target('groq/llama-3.1-8b-instant', { priority: 1 })],
      });
      const open = () => metricValue(bed.gateway.url, 'gateway_route_open_circuits');
      const openBefore = await open();
      for (let index = 0; index < 2; index += 1) {
        bed.openai.overrideNext(failWith(503));
        expect(routeHeaders(await bed.chat(model)).attempts).toBe('2');
      }
      expect(await open()).toBe(openBefore + 1);
      // Open: skipped without a try.
      const openaiBefore = bed.openai.requests.length;
      const skipped = await bed.chat(model);
      expect(routeHeaders(skipped)).toMatchObject({ target: 'groq/llama-3.1-8b-instant', attempts: '1' });
      expect(bed.openai.requests.length).toBe(openaiBefore);

      // After openSeconds, one probe; the others still go to the fallback while it is in flight.
      await new Promise((resolve) => setTimeout(resolve, 1050));
      const { promise: release, resolve } = Promise.withResolvers<void>();
      bed.openai.overrideNext(held(release));
      const probe = bed.chat(model);
      await bed.openai.waitForRequests(openaiBefore + 1);
      const during = await bed.chat(model);
      expect(routeHeaders(during)).toMatchObject({ target: 'groq/llama-3.1-8b-instant', attempts: '1' });
      resolve();
      expect(routeHeaders(await probe)).toMatchObject({ target: 'openai/gpt-4o-mini', attempts: '1' });
      expect(await open()).toBe(openBefore);
      expect(routeHeaders(await bed.chat(model)).target).toBe('openai/gpt-4o-mini');

      // A probe that fails opens it again.
      for (let index = 0; index < 2; index += 1) {
        bed.openai.overrideNext(failWith(503));
        await (await bed.chat(model)).text();
      }
      await new Promise((resolve) => setTimeout(resolve, 1050));
      bed.openai.overrideNext(failWith(503));
      expect(routeHeaders(await bed.chat(model)).attempts).toBe('2');
      expect(routeHeaders(await bed.chat(model))).toMatchObject({
        target: 'groq/llama-3.1-8b-instant',
        attempts: '1',
      });
    });

    it('answers 503 service.no_healthy_target with Retry-After when every target is open', async () => {
      const model = fresh();
      await bed.putRoute(model, {
        circuitBreaker: { consecutiveFailures: 1, openSeconds: 30 },
        targets: [target('openai/gpt-4o-mini'), target('groq/llama-3.1-8b-instant', { priority: 1 })],
      });
      bed.openai.overrideNext(failWith(503));
      bed.groq.overrideNext(failWith(503));
      const failed = await bed.chat(model);
      expect(failed.status).toBe(503);
      expect(routeHeaders(failed).attempts).toBe('2');
      const response = await bed.chat(model);
      expect(response.status).toBe(503);
      const body = (await response.json()) as { error: { code: string } };
      expect(body.error.code).toBe('service.no_healthy_target');
      const retryAfter = Number(response.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(30);
      expect(routeHeaders(response)).toMatchObject({ route: model, attempts: '0' });
    });

    it('serves the official openai SDK through a route whose first target fails: one call, a 200, 2 attempts', async () => {
      const model = fresh();
      await bed.putRoute(model, {
        targets: [target('openai/gpt-4o-mini'), target('groq/llama-3.1-8b-instant', { priority: 1 })],
      });
      bed.openai.overrideNext(failWith(503));
      const client = new OpenAI({
        apiKey: bed.gateway.credentials.apiKey,
        baseURL: `${bed.gateway.url}/v1`,
        maxRetries: 0,
      });
      const { data, response } = await client.chat.completions
        .create({ model, messages: [{ role: 'user', content: 'through the SDK' }] })
        .withResponse();
      expect(response.status).toBe(200);
      expect(response.headers.get('x-service-route-attempts')).toBe('2');
      expect(response.headers.get('x-service-route-target')).toBe('groq/llama-3.1-8b-instant');
      expect(data.choices[0]?.message.content).toContain('fake OpenAI');
    });
  });
}
