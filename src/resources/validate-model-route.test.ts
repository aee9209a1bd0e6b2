import { describe, expect, it } from 'vitest';
import { API_VERSION } from './types.ts';
import { validateResource } from './validate.ts';

type Fields = Record<string, unknown>;

const route = (spec: Fields = {}, metadata: Fields = {}): Fields => ({
  apiVersion: API_VERSION,
  kind: 'ModelRoute',
  metadata: { name: 'chat-default', namespace: 'tenant-acme', ...metadata },
  spec: { targets: [{ model: 'openai/gpt-4o-mini' }], ...spec },
});

describe('validateResource on a ModelRoute', () => {
  it.each([
    ['one target, every default', route()],
    [
      "the issue's example, every field set",
      route({
        model: 'chat-default',
        workspace: 'main',
        strategy: 'weighted',
        targets: [
          { model: 'openai/gpt-4o-mini', weight: 3 },
          { model: '@acme-azure/gpt-4o-mini', weight: 1 },
          { model: 'anthropic/claude-3-5-haiku-latest', priority: 1 },
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
      }),
    ],
    ['leastBusy', route({ strategy: 'leastBusy' })],
    ['a model name with dots, colons and capitals', route({ model: 'Llama-3.1:8b_chat' })],
    ['a target whose model holds slashes', route({ targets: [{ model: 'together/meta-llama/Llama-3-8b' }] })],
    [
      'a weight-0 target beside a weighted one',
      route({ targets: [{ model: 'openai/a' }, { model: 'openai/b', weight: 0 }] }),
    ],
    ['a shared tenant-wide route of platform models', route({ shared: true })],
    ['no retry conditions', route({ retry: { on: [] } })],
    ['the limits themselves', route({ retry: { maxAttempts: 10, backoffMs: 60_000, maxBackoffMs: 60_000 } })],
  ])('accepts %s', (_label, resource) => {
    expect(validateResource(resource)).toEqual([]);
  });

  it.each([
    ['no targets', route({ targets: [] }), 'spec.targets must have at least one target'],
    ['targets absent', { ...route(), spec: {} }, 'spec.targets is required'],
    [
      'seventeen targets',
      route({ targets: Array.from({ length: 17 }, (_, index) => ({ model: `openai/m${index}` })) }),
      'spec.targets must have at most 16 targets',
    ],
    [
      'a bare target (it could name a route: no chains)',
      route({ targets: [{ model: 'gpt-4o' }] }),
      'spec.targets[0].model must be provider/model or @connection/model',
    ],
    [
      'a target with nothing after the provider',
      route({ targets: [{ model: 'openai/' }] }),
      'spec.targets[0].model must be provider/model',
    ],
    [
      'a target with a space',
      route({ targets: [{ model: 'openai/gpt 4o' }] }),
      'spec.targets[0].model must be provider/model',
    ],
    [
      'a route model with a slash (it could be a target)',
      route({ model: 'openai/gpt-4o' }),
      "spec.model must be a route name: letters, digits, '.', '_', ':' and '-'",
    ],
    ['a route model starting with @', route({ model: '@acme' }), 'spec.model must be a route name'],
    [
      'a route model over 128 characters',
      route({ model: 'a'.repeat(129) }),
      'spec.model must be at most 128',
    ],
    [
      'one model twice',
      route({ targets: [{ model: 'openai/a' }, { model: 'openai/a', priority: 1 }] }),
      'spec.targets must not name one model twice',
    ],
    [
      'a negative weight',
      route({ targets: [{ model: 'openai/a', weight: -1 }] }),
      'spec.targets[0].weight must be between 0 and 1000',
    ],
    [
      'a priority whose every weight is 0',
      route({ targets: [{ model: 'openai/a' }, { model: 'openai/b', weight: 0, priority: 1 }] }),
      'every priority of spec.targets must have a target with weight > 0',
    ],
    [
      'maxAttempts 0',
      route({ retry: { maxAttempts: 0 } }),
      'spec.retry.maxAttempts must be between 1 and 10',
    ],
    [
      'maxAttempts 11',
      route({ retry: { maxAttempts: 11 } }),
      'spec.retry.maxAttempts must be between 1 and 10',
    ],
    [
      'an unknown retry condition',
      route({ retry: { on: ['always'] } }),
      'spec.retry.on[0] must be one of rateLimited, serverError, timeout, connectError',
    ],
    ['a repeated retry condition', route({ retry: { on: ['timeout', 'timeout'] } }), 'duplicate value'],
    [
      'a backoff above its ceiling',
      route({ retry: { backoffMs: 500, maxBackoffMs: 100 } }),
      'spec.retry.backoffMs must be <= spec.retry.maxBackoffMs',
    ],
    [
      'a first-byte timeout of 0',
      route({ firstByteTimeoutMs: 0 }),
      'spec.firstByteTimeoutMs must be between 1 and 600000',
    ],
    [
      'a breaker that never opens',
      route({ circuitBreaker: { consecutiveFailures: 0 } }),
      'spec.circuitBreaker.consecutiveFailures must be between 1 and 100',
    ],
    [
      'an unknown strategy',
      route({ strategy: 'roundRobin' }),
      'spec.strategy must be one of weighted, leastBusy',
    ],
    [
      'a shared workspace route',
      route({ shared: true, workspace: 'main' }),
      'a spec.shared route is tenant-wide; spec.workspace must be absent',
    ],
    [
      'a shared route targeting a Connection',
      route({ shared: true, targets: [{ model: '@mine/gpt-4o' }] }),
      'a spec.shared route may target only platform models (provider/model), never a Connection (@slug/model)',
    ],
    ['a workspace that is no slug', route({ workspace: 'Main' }), 'spec.workspace must match'],
    ['no namespace', route({}, { namespace: undefined }), 'metadata.namespace is required'],
  ])('refuses %s', (_label, resource, message) => {
    const messages = validateResource(resource);
    expect(
      messages.some((entry) => entry.includes(message)),
      messages.join('\n'),
    ).toBe(true);
  });
});
