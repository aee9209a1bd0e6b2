/**
 * Drives `run()` in-process: a fake control plane behind the SDK's `fetch` (answers by GraphQL
 * operation name or REST path, records every request), captured stdout and stderr, a stdin of the
 * test's choosing and an environment that never reaches the developer's own config file.
 */

import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { FetchLike } from '@inference-gateway/admin';
import type { ByteSource } from '../src/io.ts';
import { run } from '../src/program.ts';

export const URL = 'http://control.test:8081';
export const PAT = 'tt_pat_unit-test-0123456789abcdef';

export interface SentRequest {
  url: string;
  /** GraphQL operation name, or `POST /provision/tenant` for REST. */
  operation: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  variables: Record<string, unknown>;
}

/** An answer: GraphQL `data`, GraphQL `errors` (with a status), a REST body, or a thrown error. */
export type Answer =
  | { data: Record<string, unknown> }
  | { errors: { message: string; code: string }[]; status?: number }
  | { status: number; body: unknown }
  | { throws: unknown };

export interface FakeControlPlane {
  fetch: FetchLike;
  requests: SentRequest[];
  answer(operation: string, answer: Answer): FakeControlPlane;
}

export function fakeControlPlane(): FakeControlPlane {
  const answers = new Map<string, Answer>();
  const requests: SentRequest[] = [];
  const plane: FakeControlPlane = {
    requests,
    answer(operation, answer) {
      answers.set(operation, answer);
      return plane;
    },
    fetch: async (url, init) => {
      const body = JSON.parse(String(init.body)) as Record<string, unknown>;
      const path = new globalThis.URL(url).pathname;
      const operation = path === '/graphql' ? String(body.operationName) : `POST ${path}`;
      requests.push({
        url,
        operation,
        headers: Object.fromEntries(new Headers(init.headers).entries()),
        body,
        variables: (body.variables ?? {}) as Record<string, unknown>,
      });
      const answer = answers.get(operation);
      if (answer === undefined) throw new Error(`the fake has no answer for ${operation}`);
      if ('throws' in answer) throw answer.throws;
      if ('data' in answer) return Response.json({ data: answer.data });
      if ('errors' in answer) {
        const errors = answer.errors.map(({ message, code }) => ({ message, extensions: { code } }));
        return Response.json({ errors }, { status: answer.status ?? 200 });
      }
      return Response.json(answer.body, { status: answer.status });
    },
  };
  return plane;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** What stdin holds (then its end), or a stream of the test's own. */
  stdin?: string | ByteSource;
  fetch?: FetchLike;
}

/** A home that does not exist, so the developer's ~/.config/igw never leaks into a test. */
export const EMPTY_HOME = join(tmpdir(), `igw-no-home-${randomUUID()}`);

const directories: string[] = [];

/** A fresh temporary directory, removed by `removeTemporaryDirectories` (call it in `afterAll`). */
export function temporaryDirectory(): string {
  const path = mkdtempSync(join(tmpdir(), 'igw-test-'));
  directories.push(path);
  return path;
}

export function removeTemporaryDirectories(): void {
  for (const path of directories.splice(0)) rmSync(path, { recursive: true, force: true });
}

/** Runs `igw <argv>` in-process with IGW_URL and IGW_TOKEN set unless `env` overrides them. */
export async function runCli(argv: string[], options: RunOptions = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, {
    stdin:
      typeof options.stdin === 'object'
        ? options.stdin
        : Readable.from(options.stdin === undefined ? [] : [options.stdin]),
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: {
      HOME: EMPTY_HOME,
      XDG_CONFIG_HOME: join(EMPTY_HOME, '.config'),
      IGW_URL: URL,
      IGW_TOKEN: PAT,
      ...options.env,
    },
    homeDir: EMPTY_HOME,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  return { code, stdout, stderr };
}

/** A Connection record as the control plane returns it. */
export function connectionRecord(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'default/mine',
    slug: 'mine',
    label: 'mine',
    kind: 'openai',
    provider: 'openai',
    keyHint: 'sk-…cdef',
    workspaceId: null,
    baseUrl: null,
    awsRegion: null,
    vertexProject: null,
    vertexRegion: null,
    defaultModel: null,
    dailyCapMicros: 2_500_000,
    spentTodayMicros: 0,
    createdAt: '2025-01-01T00:00:00.000Z',
    ready: true,
    status: 'Ready',
    ...overrides,
  };
}
