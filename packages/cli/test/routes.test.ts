import { describe, expect, it } from 'vitest';
import { fakeControlPlane, runCli } from './harness.ts';

/** A route as the control plane returns it (every default filled in). */
function routeRecord(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'chat-default',
    workspaceId: null,
    strategy: 'weighted',
    targets: [
      { model: 'openai/gpt-4o-mini', weight: 3, priority: 0 },
      { model: '@my-azure/gpt-4o-mini', weight: 1, priority: 0 },
      { model: 'anthropic/claude-3-5-haiku-latest', weight: 1, priority: 1 },
    ],
    retry: {
      maxAttempts: 3,
      on: ['rateLimited', 'serverError', 'timeout', 'connectError'],
      backoffMs: 100,
      maxBackoffMs: 2000,
    },
    firstByteTimeoutMs: 30_000,
    circuitBreaker: { consecutiveFailures: 5, openSeconds: 30 },
    shared: false,
    ...overrides,
  };
}

describe('routes', () => {
  it('lists routes as a table of their tiers, or JSON; with --workspace, those in force there', async () => {
    const plane = fakeControlPlane().answer('ModelRoutes', {
      data: {
        modelRoutes: [
          routeRecord(),
          routeRecord({ model: 'fast', workspaceId: 'research', strategy: 'leastBusy', shared: false }),
        ],
      },
    });
    const human = await runCli(['routes', 'list'], { fetch: plane.fetch });
    expect(human.code).toBe(0);
    expect(human.stdout).toBe(
      [
        'MODEL         WORKSPACE  STRATEGY   ATTEMPTS  SHARED  TARGETS',
        'chat-default  all        weighted          3  no      p0: openai/gpt-4o-mini (3), @my-azure/gpt-4o-mini (1); p1: anthropic/claude-3-5-haiku-latest (1)',
        'fast          research   leastBusy         3  no      p0: openai/gpt-4o-mini (3), @my-azure/gpt-4o-mini (1); p1: anthropic/claude-3-5-haiku-latest (1)',
        '',
      ].join('\n'),
    );
    const json = await runCli(['routes', 'list', '--workspace', 'research', '--json'], {
      fetch: plane.fetch,
    });
    expect(JSON.parse(json.stdout)).toHaveLength(2);
    expect(plane.requests.map((request) => request.variables)).toEqual([{}, { workspaceId: 'research' }]);
  });

  it('says when there are none', async () => {
    const plane = fakeControlPlane().answer('ModelRoutes', { data: { modelRoutes: [] } });
    expect((await runCli(['routes', 'list'], { fetch: plane.fetch })).stdout).toBe('No model routes.\n');
  });

  it('sets a whole route from its flags, sending only what was given, and prints it', async () => {
    const plane = fakeControlPlane().answer('UpsertModelRoute', {
      data: { upsertModelRoute: routeRecord() },
    });
    const result = await runCli(
      [
        'routes',
        'set',
        'chat-default',
        '--target',
        'openai/gpt-4o-mini,weight=3',
        '--target',
        '@my-azure/gpt-4o-mini',
        '--target',
        'anthropic/claude-3-5-haiku-latest, priority=1',
        '--workspace',
        'research',
        '--strategy',
        'leastBusy',
        '--max-attempts',
        '2',
        '--retry-on',
        'rateLimited',
        '--retry-on',
        'timeout',
        '--backoff-ms',
        '0',
        '--max-backoff-ms',
        '500',
        '--first-byte-timeout-ms',
        '5000',
        '--failures',
        '2',
        '--open-seconds',
        '10',
      ],
      { fetch: plane.fetch },
    );
    expect(result.code).toBe(0);
    expect(plane.requests[0]?.variables).toEqual({
      input: {
        model: 'chat-default',
        workspaceId: 'research',
        strategy: 'leastBusy',
        targets: [
          { model: 'openai/gpt-4o-mini', weight: 3 },
          { model: '@my-azure/gpt-4o-mini' },
          { model: 'anthropic/claude-3-5-haiku-latest', priority: 1 },
        ],
        retry: { maxAttempts: 2, on: ['rateLimited', 'timeout'], backoffMs: 0, maxBackoffMs: 500 },
        firstByteTimeoutMs: 5000,
        circuitBreaker: { consecutiveFailures: 2, openSeconds: 10 },
      },
    });
    expect(result.stdout).toBe(
      [
        'model       chat-default',
        'workspace   all',
        'strategy    weighted',
        'targets     p0: openai/gpt-4o-mini (3), @my-azure/gpt-4o-mini (1); p1: anthropic/claude-3-5-haiku-latest (1)',
        'attempts    3',
        'retry on    rateLimited, serverError, timeout, connectError',
        'backoff     100 ms, at most 2000 ms',
        'first byte  within 30000 ms',
        'circuit     opens after 5 failures, for 30 s',
        'shared      no',
        '',
      ].join('\n'),
    );
  });

  it('sends nothing but the model and targets when no other flag is given; --retry-on none and --shared', async () => {
    const plane = fakeControlPlane().answer('UpsertModelRoute', {
      data: { upsertModelRoute: routeRecord({ shared: true }) },
    });
    await runCli(['routes', 'set', 'm', '--target', 'openai/a', '--json'], { fetch: plane.fetch });
    await runCli(['routes', 'set', 'm', '--target', 'openai/a', '--retry-on', 'none', '--shared'], {
      fetch: plane.fetch,
    });
    expect(plane.requests.map((request) => request.variables)).toEqual([
      { input: { model: 'm', targets: [{ model: 'openai/a' }] } },
      { input: { model: 'm', targets: [{ model: 'openai/a' }], retry: { on: [] }, shared: true } },
    ]);
  });

  it.each([
    [['routes', 'set', 'm'], "required option '--target <target>' not specified"],
    [
      ['routes', 'set', 'm', '--target', 'openai/a,weight=-1'],
      "'weight=-1' is neither weight=<n> nor priority=<n>",
    ],
    [
      ['routes', 'set', 'm', '--target', 'openai/a,tier=1'],
      "'tier=1' is neither weight=<n> nor priority=<n>",
    ],
    [['routes', 'set', 'm', '--target', ',weight=1'], 'expected <model>[,weight=<n>][,priority=<n>]'],
    [
      ['routes', 'set', 'm', '--target', 'openai/a', '--strategy', 'random'],
      'Allowed choices are weighted, leastBusy',
    ],
    [['routes', 'set', 'm', '--target', 'openai/a', '--retry-on', 'always'], 'expected one of rateLimited'],
    [
      ['routes', 'set', 'm', '--target', 'openai/a', '--max-attempts', '0'],
      'expected a whole number of 1 or more',
    ],
  ])('refuses %j as a usage error (exit 2) before calling the service', async (argv, message) => {
    const plane = fakeControlPlane();
    const result = await runCli(argv, { fetch: plane.fetch });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(plane.requests).toEqual([]);
  });

  it("reports the service's refusal (a Connection that does not exist) as exit 1", async () => {
    const message =
      "target '@nope/gpt-4o' names Connection 'nope', which tenant default does not have (or which is not Ready)";
    const plane = fakeControlPlane().answer('UpsertModelRoute', {
      errors: [{ message, code: 'VALIDATION_ERROR' }],
    });
    const result = await runCli(['routes', 'set', 'm', '--target', '@nope/gpt-4o'], { fetch: plane.fetch });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `igw: UpsertModelRoute: ${message} (VALIDATION_ERROR)\n`,
    });
  });

  it('deletes the tenant-wide route, or a workspace one', async () => {
    const plane = fakeControlPlane().answer('DeleteModelRoute', { data: { deleteModelRoute: true } });
    expect(await runCli(['routes', 'delete', 'chat-default'], { fetch: plane.fetch })).toEqual({
      code: 0,
      stdout: "Deleted the tenant-wide route 'chat-default'.\n",
      stderr: '',
    });
    const json = await runCli(['routes', 'delete', 'fast', '--workspace', 'research', '--json'], {
      fetch: plane.fetch,
    });
    expect(JSON.parse(json.stdout)).toEqual({ deleted: true, model: 'fast' });
    expect(plane.requests.map((request) => request.variables)).toEqual([
      { model: 'chat-default' },
      { model: 'fast', workspaceId: 'research' },
    ]);
  });
});
