/**
 * Cache-miss load for `bench/throughput.ts` and `bench/memory-detail.ts`: chat requests whose
 * bodies are all different (a run tag and a counter in the message), so that every one reaches a
 * gateway's cache as a miss, goes upstream and writes its entry; a start-up check of that; and the
 * fill of a memory store to its budget.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { cacheEntryBytes } from '../src/stores/memory-cache.ts';
import type { Tracked } from './harness.ts';
import { closedLoop, type LoadRequest } from './load.ts';
import { type ProcessUsage, SegmentWatch } from './proc-stats.ts';

export type Kind = 'json' | 'sse';
export const KINDS: Kind[] = ['json', 'sse'];
export const CACHE_HEADER = 'x-service-cache';

const RUN_TAG = randomBytes(4).toString('hex');
let counter = 0;

/**
 * BENCH_PROMPT_BYTES: a conversation history of about this many bytes before each request's own
 * question (turns of prose, user and assistant in turn), as real chat requests carry; 0 (the
 * default) for none, the one short question.
 */
const PROMPT_BYTES = Number(process.env.BENCH_PROMPT_BYTES ?? 0);
const TURN_TEXT =
  'Here is what I found about the question, with the details that matter and a short example of each. '.repeat(
    5,
  );

function history(bytes: number): string {
  let text = '';
  for (let turn = 0; text.length < bytes; turn++)
    text += `{"role":"${turn % 2 === 0 ? 'user' : 'assistant'}","content":"${turn} ${TURN_TEXT}"},`;
  return text;
}

/** Bodies of one model and kind, each with the next counter value (same length within a decade). */
export function bodyMaker(model: string, kind: Kind): () => Buffer {
  const head = `{"model":"${model}","messages":[${history(PROMPT_BYTES)}{"role":"user","content":"q ${RUN_TAG} `;
  const tail = kind === 'sse' ? '"}],"stream":true}' : '"}]}';
  return () => Buffer.from(`${head}${++counter}${tail}`);
}

export interface MissTarget {
  url: string;
  apiKey: string;
  /** `openai/gpt-4o-mini` through a gateway, `gpt-4o-mini` through the bare forwarder. */
  model: string;
  /** The process that serves `url`. */
  tracked: Tracked;
  /** The gateway's workspace (the cache key's length); '' for the bare forwarder. */
  workspaceId: string;
  /** A gateway: every answer must carry `x-service-cache: miss`. */
  expectMiss: boolean;
}

export function requestFor(target: MissTarget, kind: Kind): LoadRequest {
  const next = bodyMaker(target.model, kind);
  return {
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${target.apiKey}` },
    body: next(),
    nextBody: next,
    stream: kind === 'sse',
    ...(target.expectMiss ? { expectHeader: { name: CACHE_HEADER, value: 'miss' } } : {}),
  };
}

interface Answer {
  status: number;
  cache: string | undefined;
  text: string;
}

async function send(pool: Pool, request: LoadRequest, body: Buffer): Promise<Answer> {
  const response = await pool.request({ path: request.path, method: 'POST', headers: request.headers, body });
  const text = await response.body.text();
  const cache = response.headers[CACHE_HEADER];
  return { status: response.statusCode, cache: Array.isArray(cache) ? cache.join(',') : cache, text };
}

/**
 * One request per kind must answer 200 (SSE ending with `[DONE]`); on a gateway it must be a miss,
 * and the same body again a hit (the cache is on and writes). Returns the answers' sizes.
 */
export async function checkTarget(target: MissTarget, name: string): Promise<{ json: number; sse: number }> {
  const pool = new Pool(target.url, { connections: 2 });
  const sizes = { json: 0, sse: 0 };
  const fail = (what: string, answer: Answer) => {
    throw new Error(
      `${name}: ${what}: status ${answer.status}, ${CACHE_HEADER} ${answer.cache}: ${answer.text.slice(0, 300)}`,
    );
  };
  try {
    for (const kind of KINDS) {
      const request = requestFor(target, kind);
      const body = request.nextBody!();
      const first = await send(pool, request, body);
      if (first.status !== 200) fail(`${kind} check`, first);
      if (kind === 'sse' && !first.text.endsWith('data: [DONE]\n\n')) fail('SSE check (no [DONE])', first);
      sizes[kind] = Buffer.byteLength(first.text);
      if (!target.expectMiss) continue;
      if (first.cache !== 'miss') fail(`${kind} check (expected a miss)`, first);
      // The entry is written (a stream's once it ended): the same body again must be a hit.
      const deadline = Date.now() + 5000;
      for (;;) {
        const again = await send(pool, request, body);
        if (again.cache === 'hit') break;
        if (Date.now() > deadline) fail(`${kind} check (the same body again: no hit in 5 s)`, again);
        await sleep(20);
      }
    }
    return sizes;
  } finally {
    await pool.close();
  }
}

export async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  if (match === null) throw new Error(`${name} is not in ${url}/metrics`);
  return Number(match[1]);
}

export interface FillResult {
  budgetBytes: number;
  entries: number;
  /** Entry text written (UTF-8 bytes, = chars here), from gateway_cache_written_bytes_total. */
  writtenBytes: number;
  /** What the store charged for them (its `cacheEntryBytes`: key, entry text and overhead), summed. */
  chargedBytes: number;
  /** Entries that fit the budget at the average charge (the store holds about this many). */
  entriesHeld: number;
  seconds: number;
  requestsPerSecond: number;
  usage: ProcessUsage;
}

/**
 * Unique misses (1 s of each kind in turn) until the memory store has been charged 105% of
 * `budgetBytes` (so it is full and evicting), or `maxMs` has passed.
 */
export async function fillMemoryStore(
  target: MissTarget,
  kinds: Kind[],
  concurrency: number,
  budgetBytes: number,
  maxMs = 180_000,
): Promise<FillResult> {
  // The store's key: `<tenant>/<workspace>:<namespace>:<generations>:<sha-256 hex>` (the bench's
  // tenant and workspace are both `default`).
  const keyChars = `${target.workspaceId}/${target.workspaceId}:-:0.0:`.length + 64;
  const pool = new Pool(target.url, { connections: concurrency, pipelining: 1 });
  const requests = kinds.map((kind) => requestFor(target, kind));
  const writtenBefore = await metric(target.url, 'gateway_cache_written_bytes_total');
  const watch = new SegmentWatch([target.tracked.child.pid!]);
  const started = performance.now();
  let entries = 0;
  let writtenBytes = 0;
  let chargedBytes = 0;
  try {
    while (chargedBytes < budgetBytes * 1.05 && performance.now() - started < maxMs) {
      for (const request of requests) {
        const samples = await closedLoop(pool, request, concurrency, 1000);
        if (samples.failures > 0)
          throw new Error(`filling the memory store: ${samples.failureExamples.join('; ')}`);
        entries += samples.ok;
      }
      // Stream entries are written when the stream ends: let the last ones land.
      await sleep(50);
      writtenBytes = (await metric(target.url, 'gateway_cache_written_bytes_total')) - writtenBefore;
      chargedBytes = writtenBytes + entries * cacheEntryBytes('k'.repeat(keyChars), '');
    }
  } finally {
    await pool.close();
  }
  const usage = watch.stop()[0]!;
  const seconds = (performance.now() - started) / 1000;
  return {
    budgetBytes,
    entries,
    writtenBytes,
    chargedBytes,
    entriesHeld: Math.min(entries, Math.floor(budgetBytes / (chargedBytes / Math.max(entries, 1)))),
    seconds,
    requestsPerSecond: entries / seconds,
    usage,
  };
}
