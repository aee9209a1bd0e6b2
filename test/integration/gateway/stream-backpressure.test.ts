/**
 * A streamed answer to a client that reads slower than the upstream writes: the gateway stops
 * reading the upstream while the client's socket is full (it holds about a socket's worth, never the
 * whole answer), and the client still gets every byte once it reads again.
 */
import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAiStreamEvents, startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

/** The upstream's answer: 512 content events of 64 KiB each, 32 MiB in all. */
const EVENTS = 512;
const PIECE = 'x'.repeat(64 * 1024);
/** The upstream is taken to be held back once a write has waited this long for its drain. */
const STALL_MS = 1000;

let openai: FakeServer;
let gateway: TestGateway;

beforeAll(async () => {
  openai = await startFakeOpenAi();
  gateway = await startTestGateway({ OPENAI_API_KEY: 'sk-platform', OPENAI_BASE_URL: `${openai.url}/v1` });
});
afterAll(async () => {
  await gateway?.stop();
  await openai?.stop();
});

describe('a streamed answer to a slow client', () => {
  it('holds the upstream back while the client does not read, and delivers every byte when it does', async () => {
    const events = openAiStreamEvents(
      'gpt-4o',
      Array.from({ length: EVENTS }, () => PIECE),
      true,
    );
    const total = events.reduce((sum, event) => sum + Buffer.byteLength(event), 0);
    let written = 0;
    let resolveStalled: (writtenThen: number) => void = () => {};
    const stalled = new Promise<number>((resolve) => {
      resolveStalled = resolve;
    });
    let resolveFinished: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      resolveFinished = resolve;
    });
    openai.overrideNext(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const event of events) {
        written += Buffer.byteLength(event);
        if (response.write(event)) continue;
        const timer = setTimeout(() => resolveStalled(written), STALL_MS);
        await once(response, 'drain');
        clearTimeout(timer);
      }
      response.end();
      resolveFinished();
    });

    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = httpRequest(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${gateway.credentials.apiKey}`,
          'content-type': 'application/json',
          'x-service-cache': 'off',
        },
      });
      outgoing.on('response', resolve).on('error', reject);
      outgoing.end(
        JSON.stringify({
          model: 'openai/gpt-4o',
          messages: [{ role: 'user', content: 'a long answer' }],
          stream: true,
          stream_options: { include_usage: true },
        }),
      );
    });
    expect(answer.statusCode).toBe(200);
    answer.pause();

    // Not reading: the upstream is held back with most of its answer unsent (a gateway that read it
    // all into memory would let the upstream finish).
    const writtenWhenStalled = await Promise.race([stalled, finished.then(() => total)]);
    if (writtenWhenStalled >= total / 2) answer.destroy(); // failing: let the gateway stop
    expect(writtenWhenStalled).toBeLessThan(total / 2);

    answer.setEncoding('utf8');
    let text = '';
    for await (const chunk of answer) text += chunk as string;
    expect(written).toBe(total);
    expect(text.split(PIECE).length - 1).toBe(EVENTS);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });
});
