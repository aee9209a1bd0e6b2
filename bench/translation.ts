/**
 * Streaming-translation benchmark (`npm run bench:translation`), one run that stops by itself,
 * loopback only:
 *
 * 1. In process: a long answer (BENCH_LONG_DELTAS content deltas, 1000) in each upstream shape,
 *    built by fake-providers.ts, fed through what `relayStream` does per upstream chunk:
 *    `SseEventReader` → the stream translator (Anthropic→chat, Gemini→chat; none for OpenAI, the
 *    passthrough) → the OpenAI stream observer (parses every client event for usage, drops the
 *    usage-only chunk) → `serializeSseEvent` → one string per upstream chunk. No sockets. Also the
 *    reader alone ("parse only"), to split the cost. Two chunkings of the upstream bytes: one chunk
 *    per event (a real provider's pace) and 16 KiB slices (events and UTF-8 sequences cut anywhere).
 * 2. Through the gateway: fake-providers.ts (one child process serving the three shapes with the
 *    same BENCH_DELTAS deltas, 64, in BENCH_WRITES writes, 8) and the gateway (`standalone`,
 *    GATEWAY_CACHE=off, ANTHROPIC_/GEMINI_/OPENAI_BASE_URL at the fake). Streamed chat completions
 *    for `openai/…` (passthrough), `anthropic/…` and `gemini/…` through the gateway, and each shape's
 *    own request sent directly to the fake, with a closed-loop generator (hrtime) at c=1 and c=16:
 *    time to first body byte, time to last byte, streams/s and client SSE events/s. Every response
 *    is checked: status 200, the right number of events, the shape's own last event.
 *
 * Options (flags or env): --quick (a smoke test), --in-process (part 1 alone), BENCH_SEGMENT_MS, BENCH_ROUNDS,
 * BENCH_CONCURRENCY (`1,16`), BENCH_DELTAS, BENCH_WRITES, BENCH_LONG_DELTAS. See bench/README.md,
 * section "Streaming translation".
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Dispatcher, Pool } from 'undici';
import { type SseEvent, SseEventReader, serializeSseEvent } from '../src/sse/sse-events.ts';
import { createAnthropicStreamToChatTranslator } from '../src/translate/openai-to-anthropic/stream.ts';
import { createGeminiStreamTranslator } from '../src/translate/openai-to-gemini/stream.ts';
import { planUpstream } from '../src/translate/plans/registry.ts';
import { planResponsesUpstream } from '../src/translate/plans/responses.ts';
import { createOpenAiStreamObserver } from '../src/translate/plans/stream-observers.ts';
import { mintResponseId } from '../src/translate/responses-to-chat/index.ts';
import type { StreamTranslator } from '../src/translate/types.ts';
import {
  allEvents,
  anthropicStream,
  deltaTexts,
  geminiStream,
  openAiStream,
  type Shape,
  type ShapedStream,
} from './fake-providers.ts';
import { BENCH_DIR, f3, machineInfo, ROOT, runBench, startStandalone, stopAll, table } from './harness.ts';
import { concatSamples, type Summary, summarise } from './load.ts';

const argv = new Set(process.argv.slice(2));
const QUICK = argv.has('--quick');
/** Part 1 alone (no children, no sockets). */
const IN_PROCESS_ONLY = argv.has('--in-process');

const config = {
  /** Part 1: deltas in the long answer. */
  longDeltas: Number(process.env.BENCH_LONG_DELTAS ?? 1000),
  /** Part 1: measured time per case and round (rounds rotate over the cases). */
  inProcessSegmentMs: QUICK ? 150 : 400,
  inProcessWarmupMs: QUICK ? 100 : 250,
  /** Part 2: deltas per answer and the fake's writes per answer. */
  deltas: Number(process.env.BENCH_DELTAS ?? 64),
  writes: Number(process.env.BENCH_WRITES ?? 8),
  segmentMs: Number(process.env.BENCH_SEGMENT_MS ?? (QUICK ? 400 : 1500)),
  segmentWarmupMs: QUICK ? 100 : 300,
  rounds: Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 3)),
  initialWarmupMs: QUICK ? 900 : 3000,
  concurrency: (process.env.BENCH_CONCURRENCY ?? '1,16').split(',').map(Number),
};

const SHAPES: Shape[] = ['openai', 'anthropic', 'gemini'];
const SIGNING_KEY = 'ab'.repeat(32);
const PROMPT = 'Recommend a dessert from Lyon, and a tea to go with it.';
const UPSTREAM_MODEL = { openai: 'gpt-4o-mini', anthropic: 'claude-sonnet-4-5', gemini: 'gemini-2.5-flash' };

const mb = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000);

// ---------------------------------------------------------------------------------------------
// Part 1: the relay's per-chunk work, in process.

/** The upstream stream as the gateway asks for it: OpenAI with include_usage (the gateway always asks). */
function upstreamStream(shape: Shape, pieces: string[]): ShapedStream {
  if (shape === 'openai') return openAiStream(pieces, true);
  return shape === 'anthropic' ? anthropicStream(pieces) : geminiStream(pieces);
}

function translatorFor(shape: Shape): StreamTranslator | undefined {
  // The contexts `planTranslation` builds for chat->anthropic and chat->gemini.
  if (shape === 'anthropic')
    return createAnthropicStreamToChatTranslator({ includeUsage: true, model: UPSTREAM_MODEL.anthropic });
  if (shape === 'gemini')
    return createGeminiStreamTranslator({ model: UPSTREAM_MODEL.gemini, includeUsage: true });
  return undefined;
}

/** The client of a stream: chat completions, or the Responses API (typed events). */
type Client = 'chat' | 'responses';

/** The request body a Responses client sends (what the Responses pipeline is planned from). */
const RESPONSES_BODY = { model: 'bench', input: PROMPT, max_output_tokens: 256, stream: true };

/**
 * One request's client pipeline: for chat, the stream translator (none for OpenAI) then the OpenAI
 * observer (client did not ask for usage); for Responses, the plan's own pipeline (the chat
 * translator chained with chat→Responses, then the Responses observer), as the gateway makes it.
 */
function pipelineFor(
  shape: Shape,
  client: Client,
): { accept(event: SseEvent): SseEvent[]; end(): SseEvent[] } {
  if (client === 'responses') {
    const pipeline = planResponsesUpstream(
      { body: RESPONSES_BODY, stream: true, responseId: mintResponseId() },
      {
        shape,
        provider: shape === 'openai' ? 'openai-compatible' : shape,
        model: UPSTREAM_MODEL[shape],
        nativePath: undefined,
      },
    ).stream();
    return { accept: (event) => pipeline.push(event), end: () => pipeline.end() };
  }
  const observer = createOpenAiStreamObserver(false);
  const translator = translatorFor(shape);
  const observe = (events: SseEvent[]) => events.filter((event) => observer.accept(event));
  return {
    accept: (event) => (translator === undefined ? observe([event]) : observe(translator.push(event))),
    end: () => (translator === undefined ? [] : observe(translator.end())),
  };
}

/**
 * What relayStream does with one upstream body, minus the socket: reader → pipeline → serialise,
 * one string per upstream chunk. Returns the strings' total length (a sink) or, with `keep`, the
 * strings.
 */
function relayOnce(shape: Shape, client: Client, chunks: Uint8Array[], keep?: string[]): number {
  const pipeline = pipelineFor(shape, client);
  const pending: string[] = [];
  let length = 0;
  const reader = new SseEventReader((event) => {
    for (const out of pipeline.accept(event)) pending.push(serializeSseEvent(out));
  });
  const flush = () => {
    if (pending.length === 0) return;
    const text = pending.length === 1 ? pending[0]! : pending.join('');
    pending.length = 0;
    length += text.length;
    keep?.push(text);
  };
  for (const chunk of chunks) {
    reader.feed(chunk);
    flush();
  }
  reader.end();
  for (const out of pipeline.end()) pending.push(serializeSseEvent(out));
  flush();
  return length;
}

/** The reader alone: bytes → events, nothing done with them. Returns the number of events. */
function parseOnce(chunks: Uint8Array[]): number {
  let events = 0;
  const reader = new SseEventReader(() => {
    events++;
  });
  for (const chunk of chunks) reader.feed(chunk);
  reader.end();
  return events;
}

/** The client's events of an SSE text: their `data` fields. */
function clientEvents(text: string): string[] {
  const out: string[] = [];
  for (const block of text.split('\n\n')) {
    if (block === '') continue;
    out.push(
      block
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n'),
    );
  }
  return out;
}

/** Checks a client (chat-completion chunk) stream: the whole text, ends with [DONE]; returns the event count. */
function checkChatStream(what: string, text: string, expected: string): number {
  const events = clientEvents(text);
  if (events.at(-1) !== '[DONE]') throw new Error(`${what}: the stream does not end with [DONE]`);
  let content = '';
  for (const data of events.slice(0, -1)) {
    const chunk = JSON.parse(data) as {
      choices?: { delta?: { content?: string } }[];
      usage?: unknown;
      error?: unknown;
    };
    if (chunk.error !== undefined) throw new Error(`${what}: error event ${data}`);
    if (chunk.usage !== undefined && chunk.usage !== null)
      throw new Error(`${what}: a usage chunk reached a client that did not ask for it`);
    content += chunk.choices?.[0]?.delta?.content ?? '';
  }
  if (content !== expected) throw new Error(`${what}: content differs from the fake's text`);
  return events.length;
}

/** Checks a Responses stream: numbered events, the whole text, ends with response.completed; returns the event count. */
function checkResponsesStream(what: string, text: string, expected: string): number {
  const events = clientEvents(text).map(
    (data) => JSON.parse(data) as { type: string; sequence_number: number; delta?: string },
  );
  let content = '';
  events.forEach((event, index) => {
    if (event.sequence_number !== index)
      throw new Error(`${what}: event ${index} numbered ${event.sequence_number}`);
    if (event.type === 'response.output_text.delta') content += event.delta ?? '';
  });
  if (events.at(-1)?.type !== 'response.completed')
    throw new Error(`${what}: the stream does not end with response.completed`);
  if (content !== expected) throw new Error(`${what}: content differs from the fake's text`);
  return events.length;
}

interface InProcessCase {
  name: string;
  shape: Shape;
  client: Client;
  stage: 'parse only' | 'relay';
  chunking: 'per event' | '16 KiB';
  chunks: Uint8Array[];
  inputBytes: number;
  /** Client events (relay) or upstream events (parse only) per stream. */
  eventsOut: number;
  outputBytes: number;
}

interface InProcessResult {
  name: string;
  streams: number;
  measuredMs: number;
  streamsPerSecond: number;
  /** Client chunks (relay) or parsed upstream events (parse only) per second. */
  chunksPerSecond: number;
  microsPerDelta: number;
  inputMBps: number;
  outputMBps: number;
  perStreamMs: Summary;
}

function inProcessCases(): InProcessCase[] {
  const pieces = deltaTexts(config.longDeltas);
  const text = pieces.join('');
  const cases: InProcessCase[] = [];
  for (const shape of SHAPES) {
    const events = allEvents(upstreamStream(shape, pieces)).map((event) => Buffer.from(event));
    const whole = Buffer.concat(events);
    const slices: Uint8Array[] = [];
    for (let offset = 0; offset < whole.length; offset += 16_384)
      slices.push(whole.subarray(offset, offset + 16_384));
    for (const [chunking, chunks] of [
      ['per event', events],
      ['16 KiB', slices],
    ] as const) {
      const parsed = parseOnce(chunks);
      if (parsed !== events.length)
        throw new Error(`${shape} ${chunking}: parsed ${parsed} of ${events.length}`);
      const chatLabel = shape === 'openai' ? 'openai passthrough' : `${shape}→chat`;
      cases.push({
        name: `${chatLabel}, parse only, ${chunking}`,
        shape,
        client: 'chat',
        stage: 'parse only',
        chunking,
        chunks,
        inputBytes: whole.length,
        eventsOut: parsed,
        outputBytes: 0,
      });
      for (const client of ['chat', 'responses'] as const) {
        const kept: string[] = [];
        relayOnce(shape, client, chunks, kept);
        const output = kept.join('');
        const label =
          client === 'chat'
            ? chatLabel
            : shape === 'openai'
              ? 'chat→responses (compatible)'
              : `${shape}→chat→responses`;
        const eventsOut =
          client === 'chat'
            ? checkChatStream(`${label} ${chunking}`, output, text)
            : checkResponsesStream(`${label} ${chunking}`, output, text);
        cases.push({
          name: `${label}, relay, ${chunking}`,
          shape,
          client,
          stage: 'relay',
          chunking,
          chunks,
          inputBytes: whole.length,
          eventsOut,
          outputBytes: Buffer.byteLength(output),
        });
      }
    }
  }
  return cases;
}

let sink = 0;

function runCase(item: InProcessCase, durationMs: number, into?: number[]): { streams: number; ms: number } {
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(durationMs * 1e6));
  let streams = 0;
  let now = started;
  while (now < deadline) {
    const before = now;
    sink += item.stage === 'relay' ? relayOnce(item.shape, item.client, item.chunks) : parseOnce(item.chunks);
    now = process.hrtime.bigint();
    into?.push(Number(now - before) / 1e6);
    streams++;
  }
  return { streams, ms: Number(now - started) / 1e6 };
}

function measureInProcess(cases: InProcessCase[]): InProcessResult[] {
  for (const item of cases) runCase(item, config.inProcessWarmupMs);
  const parts = cases.map(() => ({ samples: [] as number[], streams: 0, ms: 0 }));
  for (let round = 0; round < config.rounds; round++) {
    // Rotate the order so that drift and GC debt do not always land on the same case.
    for (let step = 0; step < cases.length; step++) {
      const index = (step + round * 5) % cases.length;
      const part = parts[index]!;
      const { streams, ms } = runCase(cases[index]!, config.inProcessSegmentMs, part.samples);
      part.streams += streams;
      part.ms += ms;
    }
  }
  return cases.map((item, index) => {
    const { samples, streams, ms } = parts[index]!;
    const streamsPerSecond = (streams * 1000) / ms;
    return {
      name: item.name,
      streams,
      measuredMs: ms,
      streamsPerSecond,
      chunksPerSecond: streamsPerSecond * item.eventsOut,
      microsPerDelta: (ms * 1000) / (streams * config.longDeltas),
      inputMBps: mb(item.inputBytes * streams, ms),
      outputMBps: mb(item.outputBytes * streams, ms),
      perStreamMs: summarise(Float64Array.from(samples)),
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Part 1b: one JSON request and answer, in process: the plan (request translated) and the answer
// translated back, for a chat-completions client and a Responses client, per upstream shape.

const CHAT_BODY = { model: 'bench', messages: [{ role: 'user', content: PROMPT }], max_tokens: 256 };

/** The upstream's JSON answer of the long text in each shape. */
function upstreamAnswer(shape: Shape, text: string): string {
  const usage = {
    prompt_tokens: 31,
    completion_tokens: config.longDeltas,
    total_tokens: 31 + config.longDeltas,
  };
  if (shape === 'anthropic')
    return JSON.stringify({
      id: 'msg_bench',
      type: 'message',
      role: 'assistant',
      model: UPSTREAM_MODEL.anthropic,
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 31, output_tokens: config.longDeltas },
    });
  if (shape === 'gemini')
    return JSON.stringify({
      candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: {
        promptTokenCount: 31,
        candidatesTokenCount: config.longDeltas,
        totalTokenCount: 31 + config.longDeltas,
      },
      modelVersion: UPSTREAM_MODEL.gemini,
      responseId: 'bench',
    });
  return JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: UPSTREAM_MODEL.openai,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text, refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage,
  });
}

/** Plans one request and translates its answer; returns the client's answer length (a sink). */
function requestOnce(shape: Shape, client: Client, answer: string): number {
  const target = {
    shape,
    provider: shape === 'openai' ? 'openai-compatible' : shape,
    model: UPSTREAM_MODEL[shape],
    nativePath: shape === 'openai' && client === 'chat' ? '/chat/completions' : undefined,
  };
  const plan =
    client === 'chat'
      ? planUpstream({ operation: 'chat', body: CHAT_BODY, stream: false }, target)
      : planResponsesUpstream(
          { body: { ...RESPONSES_BODY, stream: false }, stream: false, responseId: mintResponseId() },
          target,
        );
  return plan.payload.length + plan.answer(answer).text.length;
}

interface AnswerResult {
  name: string;
  requests: number;
  microsPerRequest: number;
}

function measureAnswers(): AnswerResult[] {
  const text = deltaTexts(config.longDeltas).join('');
  const cases = SHAPES.flatMap((shape) =>
    (['chat', 'responses'] as const).map((client) => ({
      name:
        client === 'chat'
          ? `chat on ${shape}${shape === 'openai' ? ' (passthrough)' : ''}`
          : `responses on ${shape}${shape === 'openai' ? ' (compatible: chat pivot)' : ''}`,
      shape,
      client,
      answer: upstreamAnswer(shape, text),
    })),
  );
  const run = (item: (typeof cases)[number], durationMs: number) => {
    const started = process.hrtime.bigint();
    const deadline = started + BigInt(Math.round(durationMs * 1e6));
    let requests = 0;
    let now = started;
    while (now < deadline) {
      sink += requestOnce(item.shape, item.client, item.answer);
      requests++;
      now = process.hrtime.bigint();
    }
    return { requests, ms: Number(now - started) / 1e6 };
  };
  for (const item of cases) run(item, config.inProcessWarmupMs);
  const totals = cases.map(() => ({ requests: 0, ms: 0 }));
  for (let round = 0; round < config.rounds; round++)
    cases.forEach((item, index) => {
      const { requests, ms } = run(item, config.inProcessSegmentMs);
      totals[index]!.requests += requests;
      totals[index]!.ms += ms;
    });
  return cases.map((item, index) => ({
    name: item.name,
    requests: totals[index]!.requests,
    microsPerRequest: (totals[index]!.ms * 1000) / totals[index]!.requests,
  }));
}

// ---------------------------------------------------------------------------------------------
// Part 2: children.

const ownChildren = new Set<ChildProcess>();
let stopping = false;
process.on('exit', () => {
  for (const child of ownChildren)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

async function startFakeProviders(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [join(BENCH_DIR, 'fake-providers.ts'), String(config.deltas), String(config.writes)],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  ownChildren.add(child);
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-8000);
  });
  child.once('exit', (code, signal) => {
    ownChildren.delete(child);
    if (stopping) return;
    process.stderr.write(
      `bench: fake providers exited unexpectedly (code ${code}, signal ${signal})\n${output}\n`,
    );
    process.exit(1);
  });
  const port = await new Promise<number>((done, fail) => {
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      child.stdout!.off('data', onData);
      child.stdout!.resume();
      try {
        done((JSON.parse(buffered.slice(0, newline)) as { port: number }).port);
      } catch (error) {
        fail(error);
      }
    };
    child.stdout!.on('data', onData);
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

async function stopFakeProviders(child: ChildProcess): Promise<void> {
  stopping = true;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

// ---------------------------------------------------------------------------------------------
// Part 2: targets and the closed-loop generator.

/** Straight to the fake; through the gateway's chat completions; through its /v1/responses. */
type Via = 'direct' | 'gateway' | 'responses';

interface Target {
  name: string;
  shape: Shape;
  via: Via;
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  /** The response's last event, byte for byte. */
  tail: Buffer;
  /** The event separator of the answer (Gemini: CRLF CRLF). */
  separator: Buffer;
  /** Events per answer. */
  events: number;
}

function targets(fakeUrl: string, gatewayUrl: string, apiKey: string): Target[] {
  const pieces = deltaTexts(config.deltas);
  const lf = Buffer.from('\n\n');
  const doneTail = Buffer.from('data: [DONE]\n\n');
  // The gateway's client stream: role chunk, one chunk per delta, finish chunk, [DONE] (no usage chunk:
  // the client did not ask).
  const gatewayEvents = config.deltas + 3;
  const out: Target[] = [];
  // The Responses stream: created, in_progress, the item and part opened, one delta per piece,
  // the text, part and item done, completed; the terminal event ends with its sequence number.
  const responsesEvents = config.deltas + 8;
  for (const shape of ['anthropic', 'gemini'] as const)
    out.push({
      name: `${shape}/ responses`,
      shape,
      via: 'responses',
      origin: gatewayUrl,
      path: '/v1/responses',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: Buffer.from(
        JSON.stringify({
          model: `${shape}/${UPSTREAM_MODEL[shape]}`,
          input: PROMPT,
          max_output_tokens: 256,
          stream: true,
          store: false,
        }),
      ),
      tail: Buffer.from(`,"sequence_number":${responsesEvents - 1}}\n\n`),
      separator: lf,
      events: responsesEvents,
    });
  for (const shape of SHAPES) {
    out.push({
      name: `${shape}/ gateway`,
      shape,
      via: 'gateway',
      origin: gatewayUrl,
      path: '/v1/chat/completions',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: Buffer.from(
        JSON.stringify({
          model: `${shape}/${UPSTREAM_MODEL[shape]}`,
          messages: [{ role: 'user', content: PROMPT }],
          max_tokens: 256,
          stream: true,
        }),
      ),
      tail: doneTail,
      separator: lf,
      events: gatewayEvents,
    });
    // Direct: the request the gateway itself sends to this shape, so the fake writes the same bytes.
    const upstream = allEvents(upstreamStream(shape, pieces));
    const common = {
      name: `${shape} direct`,
      shape,
      via: 'direct' as const,
      origin: fakeUrl,
      tail: Buffer.from(upstream.at(-1)!),
      events: upstream.length,
    };
    if (shape === 'openai')
      out.push({
        ...common,
        path: '/v1/chat/completions',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
        body: Buffer.from(
          JSON.stringify({
            model: UPSTREAM_MODEL.openai,
            messages: [{ role: 'user', content: PROMPT }],
            max_tokens: 256,
            stream: true,
            stream_options: { include_usage: true },
          }),
        ),
        separator: lf,
      });
    else if (shape === 'anthropic')
      out.push({
        ...common,
        path: '/v1/messages',
        headers: {
          'content-type': 'application/json',
          'x-api-key': 'sk-ant-bench',
          'anthropic-version': '2023-06-01',
        },
        body: Buffer.from(
          JSON.stringify({
            model: UPSTREAM_MODEL.anthropic,
            max_tokens: 256,
            messages: [{ role: 'user', content: PROMPT }],
            stream: true,
          }),
        ),
        separator: lf,
      });
    else
      out.push({
        ...common,
        path: `/v1beta/models/${UPSTREAM_MODEL.gemini}:streamGenerateContent?alt=sse`,
        headers: { 'content-type': 'application/json', 'x-goog-api-key': 'gemini-bench' },
        body: Buffer.from(
          JSON.stringify({
            contents: [{ role: 'user', parts: [{ text: PROMPT }] }],
            generationConfig: { maxOutputTokens: 256 },
          }),
        ),
        separator: Buffer.from('\r\n\r\n'),
      });
  }
  // Direct next to gateway (and the gateway's /v1/responses where it translates), per shape.
  return SHAPES.flatMap((shape) =>
    (['direct', 'gateway', 'responses'] as const).flatMap((via) =>
      out.filter((target) => target.shape === shape && target.via === via),
    ),
  );
}

interface StreamSamples {
  ttfbMs: Float64Array;
  ttlbMs: Float64Array;
  ok: number;
  failures: number;
  failureExamples: string[];
  elapsedMs: number;
  events: number;
  reads: number;
  bytes: number;
}

class Samples {
  data = new Float64Array(8192);
  length = 0;
  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }
  toArray(): Float64Array {
    return this.data.slice(0, this.length);
  }
}

/** Occurrences of `separator` in `chunk`, counting one that straddles `carry` (the previous chunk's end). */
function countSeparators(chunk: Buffer, carry: Buffer, separator: Buffer): number {
  let count = 0;
  for (let at = chunk.indexOf(separator); at >= 0; at = chunk.indexOf(separator, at + separator.length))
    count++;
  if (carry.length > 0) {
    const joint = Buffer.concat([carry, chunk.subarray(0, separator.length - 1)]);
    const at = joint.indexOf(separator);
    if (at >= 0 && at < carry.length) count++;
  }
  return count;
}

/**
 * `concurrency` closed-loop workers on `pool`'s raw dispatch API (as load.ts), for `durationMs`:
 * each request's time to the first body chunk and to the end, with process.hrtime.bigint(). A
 * response counts if it has status 200, exactly `target.events` events and ends with `target.tail`.
 */
function streamLoop(
  pool: Dispatcher,
  target: Target,
  concurrency: number,
  durationMs: number,
): Promise<StreamSamples> {
  const ttfb = new Samples();
  const ttlb = new Samples();
  const failureExamples: string[] = [];
  let ok = 0;
  let failures = 0;
  let events = 0;
  let reads = 0;
  let bytes = 0;
  const options: Dispatcher.DispatchOptions = {
    path: target.path,
    method: 'POST',
    headers: target.headers,
    body: target.body,
  };
  const { separator, tail: expectedTail } = target;
  const carryLength = separator.length - 1;
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(durationMs * 1e6));
  const fail = (reason: string) => {
    failures++;
    if (failureExamples.length < 5) failureExamples.push(reason);
  };

  return new Promise((resolve) => {
    let running = concurrency;
    const finishWorker = () => {
      running--;
      if (running > 0) return;
      resolve({
        ttfbMs: ttfb.toArray(),
        ttlbMs: ttlb.toArray(),
        ok,
        failures,
        failureExamples,
        elapsedMs: Number(process.hrtime.bigint() - started) / 1e6,
        events,
        reads,
        bytes,
      });
    };
    const fire = () => {
      const sentAt = process.hrtime.bigint();
      if (sentAt >= deadline) {
        finishWorker();
        return;
      }
      let status = 0;
      let firstAt = 0n;
      let received = 0;
      let chunks = 0;
      let seen = 0;
      let carry: Buffer = Buffer.alloc(0);
      let tail: Buffer = Buffer.alloc(0);
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart() {},
        onResponseStart(_controller, statusCode) {
          status = statusCode;
        },
        onResponseData(_controller, chunk) {
          if (firstAt === 0n) firstAt = process.hrtime.bigint();
          received += chunk.length;
          chunks++;
          seen += countSeparators(chunk, carry, separator);
          carry =
            chunk.length >= carryLength
              ? chunk.subarray(chunk.length - carryLength)
              : Buffer.concat([carry, chunk]).subarray(-carryLength);
          tail =
            chunk.length >= expectedTail.length
              ? chunk.subarray(chunk.length - expectedTail.length)
              : Buffer.concat([tail, chunk]).subarray(-expectedTail.length);
        },
        onResponseEnd() {
          const endAt = process.hrtime.bigint();
          bytes += received;
          if (status !== 200) fail(`status ${status}`);
          else if (seen !== target.events) fail(`${seen} events, expected ${target.events}`);
          else if (!tail.equals(expectedTail)) fail('unexpected last event');
          else {
            ok++;
            events += seen;
            reads += chunks;
            ttfb.push(Number(firstAt - sentAt) / 1e6);
            ttlb.push(Number(endAt - sentAt) / 1e6);
          }
          setImmediate(fire);
        },
        onResponseError(_controller, error) {
          fail(error.message);
          setImmediate(fire);
        },
      };
      pool.dispatch(options, handler);
    };
    for (let worker = 0; worker < concurrency; worker++) fire();
  });
}

/** One request per target, read whole and checked (the gateway's: content equal to the fake's text). */
async function checkTargets(list: Target[]): Promise<void> {
  const expected = deltaTexts(config.deltas).join('');
  for (const target of list) {
    const pool = new Pool(target.origin, { connections: 1 });
    try {
      const response = await pool.request({
        path: target.path,
        method: 'POST',
        headers: target.headers,
        body: target.body,
      });
      const text = await response.body.text();
      if (response.statusCode !== 200)
        throw new Error(`${target.name}: status ${response.statusCode}: ${text.slice(0, 500)}`);
      if (target.via !== 'direct') {
        const cache = response.headers['x-service-cache'];
        if (cache !== undefined) throw new Error(`${target.name}: x-service-cache ${cache} (cache not off)`);
        const events =
          target.via === 'gateway'
            ? checkChatStream(target.name, text, expected)
            : checkResponsesStream(target.name, text, expected);
        if (events !== target.events)
          throw new Error(`${target.name}: ${events} events, expected ${target.events}`);
      }
      const check = await streamLoop(pool, target, 1, 1);
      if (check.failures > 0) throw new Error(`${target.name}: ${check.failureExamples.join('; ')}`);
    } finally {
      await pool.close();
    }
  }
}

interface ScenarioResult {
  name: string;
  shape: Shape;
  via: Via;
  concurrency: number;
  ok: number;
  failures: number;
  failureExamples: string[];
  measuredMs: number;
  streamsPerSecond: number;
  /** Client SSE events per second (all events: role, content, finish, [DONE]; direct: the shape's own). */
  eventsPerSecond: number;
  /** Content deltas per second. */
  deltasPerSecond: number;
  /** Body chunks (reads) the client saw per response. */
  readsPerResponse: number;
  bytesPerResponse: number;
  ttfbMs: Summary;
  ttlbMs: Summary;
}

async function measure(list: Target[], concurrency: number): Promise<ScenarioResult[]> {
  const pools = new Map<string, Pool>();
  const poolFor = (origin: string) => {
    let pool = pools.get(origin);
    if (pool === undefined) {
      pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
      pools.set(origin, pool);
    }
    return pool;
  };
  const parts = list.map(() => ({
    ttfb: [] as Float64Array[],
    ttlb: [] as Float64Array[],
    ok: 0,
    failures: 0,
    ms: 0,
    events: 0,
    reads: 0,
    bytes: 0,
    examples: [] as string[],
  }));
  try {
    for (let round = 0; round < config.rounds; round++) {
      // Rotate by a whole route each round and reverse every other round: drift hits all sides alike.
      const order = list.map((_, index) => (index + round * 2) % list.length);
      if (round % 2 === 1) order.reverse();
      for (const index of order) {
        const target = list[index]!;
        const pool = poolFor(target.origin);
        await streamLoop(pool, target, concurrency, config.segmentWarmupMs);
        const samples = await streamLoop(pool, target, concurrency, config.segmentMs);
        const part = parts[index]!;
        part.ttfb.push(samples.ttfbMs);
        part.ttlb.push(samples.ttlbMs);
        part.ok += samples.ok;
        part.failures += samples.failures;
        part.ms += samples.elapsedMs;
        part.events += samples.events;
        part.reads += samples.reads;
        part.bytes += samples.bytes;
        part.examples.push(...samples.failureExamples);
      }
    }
  } finally {
    await Promise.all([...pools.values()].map((pool) => pool.close()));
  }
  return list.map((target, index) => {
    const part = parts[index]!;
    return {
      name: `${target.name} c=${concurrency}`,
      shape: target.shape,
      via: target.via,
      concurrency,
      ok: part.ok,
      failures: part.failures,
      failureExamples: part.examples.slice(0, 5),
      measuredMs: part.ms,
      streamsPerSecond: (part.ok * 1000) / part.ms,
      eventsPerSecond: (part.events * 1000) / part.ms,
      deltasPerSecond: (part.ok * config.deltas * 1000) / part.ms,
      readsPerResponse: part.ok === 0 ? Number.NaN : part.reads / part.ok,
      bytesPerResponse: part.ok === 0 ? Number.NaN : part.bytes / part.ok,
      ttfbMs: summarise(concatSamples(part.ttfb)),
      ttlbMs: summarise(concatSamples(part.ttlb)),
    };
  });
}

async function warmUp(list: Target[]): Promise<void> {
  for (const target of list) {
    const pool = new Pool(target.origin, { connections: 8 });
    try {
      const share = target.via === 'direct' ? 0.08 : 0.25;
      const samples = await streamLoop(pool, target, 8, config.initialWarmupMs * share);
      if (samples.failures > 0)
        throw new Error(`warm-up ${target.name}: ${samples.failureExamples.join('; ')}`);
    } finally {
      await pool.close();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Main.

interface Added {
  shape: Shape;
  /** The gateway's route: chat completions, or /v1/responses. */
  via: Exclude<Via, 'direct'>;
  concurrency: number;
  ttfbP50Ms: number;
  ttfbP99Ms: number;
  ttlbP50Ms: number;
  ttlbP99Ms: number;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const machine = machineInfo();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  process.stdout.write(
    `translation bench: ${machine.cpuModel} x${machine.cpuCount}, node ${machine.node}, ${machine.os}; ` +
      `load avg ${machine.loadAvgAtStart.join(' ')}\n`,
  );

  // Part 1.
  process.stdout.write(`part 1: in process, ${config.longDeltas} deltas per stream\n`);
  const cases = inProcessCases();
  const inProcess = measureInProcess(cases);
  const part1 = [
    '',
    `1. relay work in process, one stream = ${config.longDeltas} content deltas (relay: reader → translator → observer → serialise, per upstream chunk):`,
    table(
      ['case', 'streams/s', 'chunks/s', 'µs/delta', 'in MB/s', 'out MB/s', 'ms/stream p50', 'p99'],
      inProcess.map((result) => [
        result.name,
        result.streamsPerSecond.toFixed(0),
        result.chunksPerSecond.toFixed(0),
        result.microsPerDelta.toFixed(3),
        result.inputMBps.toFixed(1),
        result.outputMBps === 0 ? '-' : result.outputMBps.toFixed(1),
        f3(result.perStreamMs.p50),
        f3(result.perStreamMs.p99),
      ]),
    ),
    '(chunks/s: client chunks written for relay rows, upstream events parsed for parse-only rows)',
  ];
  process.stdout.write(`${part1.join('\n')}\n\n`);
  const answers = measureAnswers();
  const part1b = [
    `1b. one JSON request in process (the plan, request translated, then the answer of ${config.longDeltas} deltas translated back):`,
    table(
      ['case', 'requests', 'µs/request'],
      answers.map((result) => [result.name, String(result.requests), result.microsPerRequest.toFixed(1)]),
    ),
  ];
  process.stdout.write(`${part1b.join('\n')}\n\n`);
  if (IN_PROCESS_ONLY) return;

  // Part 2.
  const fake = await startFakeProviders();
  const gateway = await startStandalone(
    {
      upstreamUrl: fake.url,
      signingKey: SIGNING_KEY,
      extraEnv: {
        ANTHROPIC_API_KEY: 'sk-ant-bench',
        ANTHROPIC_BASE_URL: fake.url,
        GEMINI_API_KEY: 'gemini-bench',
        GEMINI_BASE_URL: fake.url,
        GATEWAY_CACHE: 'off',
      },
    },
    'gateway',
  );
  const list = targets(fake.url, gateway.url, gateway.credentials.apiKey);
  process.stdout.write(
    `part 2: fake providers ${fake.url} (${config.deltas} deltas in ${config.writes} writes), gateway ${gateway.url}; checking, warming up\n`,
  );
  await checkTargets(list);
  await warmUp(list);
  const results: ScenarioResult[] = [];
  for (const concurrency of config.concurrency) {
    process.stdout.write(`  measuring c=${concurrency}\n`);
    results.push(...(await measure(list, concurrency)));
  }
  await stopAll();
  await stopFakeProviders(fake.child);

  const added: Added[] = [];
  for (const concurrency of config.concurrency) {
    for (const shape of SHAPES) {
      const of = (via: Via) =>
        results.find((r) => r.shape === shape && r.via === via && r.concurrency === concurrency);
      const direct = of('direct')!;
      for (const via of ['gateway', 'responses'] as const) {
        const through = of(via);
        if (through === undefined) continue;
        added.push({
          shape,
          via,
          concurrency,
          ttfbP50Ms: through.ttfbMs.p50 - direct.ttfbMs.p50,
          ttfbP99Ms: through.ttfbMs.p99 - direct.ttfbMs.p99,
          ttlbP50Ms: through.ttlbMs.p50 - direct.ttlbMs.p50,
          ttlbP99Ms: through.ttlbMs.p99 - direct.ttlbMs.p99,
        });
      }
    }
  }

  const report = [
    `2. streams through the gateway and direct, ${config.deltas} deltas per answer in ${config.writes} upstream writes ` +
      `(${config.rounds} × ${config.segmentMs} ms per scenario):`,
    table(
      [
        'scenario',
        'ok',
        'fail',
        'ttfb p50',
        'ttfb p99',
        'ttlb p50',
        'ttlb p99',
        'streams/s',
        'events/s',
        'reads/resp',
        'bytes/resp',
      ],
      results.map((result) => [
        result.name,
        String(result.ok),
        String(result.failures),
        f3(result.ttfbMs.p50),
        f3(result.ttfbMs.p99),
        f3(result.ttlbMs.p50),
        f3(result.ttlbMs.p99),
        result.streamsPerSecond.toFixed(0),
        result.eventsPerSecond.toFixed(0),
        result.readsPerResponse.toFixed(1),
        result.bytesPerResponse.toFixed(0),
      ]),
    ),
    '',
    'added by the gateway per route (gateway minus direct to the same shape, same percentile), ms:',
    table(
      ['route', 'ttfb p50', 'ttfb p99', 'ttlb p50', 'ttlb p99'],
      added.map((row) => [
        `${row.shape}/ ${row.via === 'responses' ? 'responses ' : ''}c=${row.concurrency}${row.shape === 'openai' ? ' (passthrough)' : ' (translated)'}`,
        f3(row.ttfbP50Ms),
        f3(row.ttfbP99Ms),
        f3(row.ttlbP50Ms),
        f3(row.ttlbP99Ms),
      ]),
    ),
  ];
  for (const result of results.filter((r) => r.failures > 0))
    report.push(`failures in ${result.name}: ${result.failureExamples.join('; ')}`);

  const resultsDir = join(BENCH_DIR, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const resultsFile = join(resultsDir, `translation-${stamp}.json`);
  writeFileSync(
    resultsFile,
    `${JSON.stringify(
      {
        date: startedAt.toISOString(),
        machine,
        loadAvgAtEnd: machineInfo().loadAvgAtStart,
        config: { ...config, quick: QUICK },
        inProcess,
        answers,
        scenarios: results,
        added,
        sink,
      },
      null,
      2,
    )}\n`,
  );
  report.push('', `results written to ${resultsFile}`, '');
  process.stdout.write(report.join('\n'));
}

runBench(main);
