import { describe, expect, it } from 'vitest';
import type { ModelRouteRecord } from '../../stores/records.ts';
import { RouteHealth, targetKey } from './route-health.ts';

const BREAKER = { consecutiveFailures: 3, openSeconds: 30 };

function clock(start = 1_000_000) {
  const time = { now: start };
  return { time, health: new RouteHealth(() => time.now) };
}

describe('RouteHealth', () => {
  it('opens a circuit after consecutiveFailures failures in a row, and a success in between resets the count', () => {
    const { health } = clock();
    const fail = () => health.end(health.begin('a'), 'failed', BREAKER);
    fail();
    fail();
    health.end(health.begin('a'), 'healthy', BREAKER);
    fail();
    fail();
    expect(health.stateOf('a')).toBe('closed');
    expect(health.isAvailable('a')).toBe(true);
    fail();
    expect(health.stateOf('a')).toBe('open');
    expect(health.isAvailable('a')).toBe(false);
    expect(health.openCircuits()).toBe(1);
  });

  it('lets one probe through once openSeconds passed (half-open); the others still skip the target', () => {
    const { time, health } = clock();
    for (let i = 0; i < 3; i++) health.end(health.begin('a'), 'failed', BREAKER);
    time.now += 29_999;
    expect(health.isAvailable('a')).toBe(false);
    time.now += 1;
    expect(health.stateOf('a')).toBe('half-open');
    expect(health.isAvailable('a')).toBe(true);
    const probe = health.begin('a');
    expect(probe.probe).toBe(true);
    expect(health.isAvailable('a')).toBe(false);
    expect(health.millisUntilAvailable(['a'])).toBe(1000);
    health.end(probe, 'healthy', BREAKER);
    expect(health.stateOf('a')).toBe('closed');
    expect(health.openCircuits()).toBe(0);
  });

  it('opens again for openSeconds when the probe fails', () => {
    const { time, health } = clock();
    for (let i = 0; i < 3; i++) health.end(health.begin('a'), 'failed', BREAKER);
    time.now += 30_000;
    const probe = health.begin('a');
    health.end(probe, 'failed', BREAKER);
    expect(health.stateOf('a')).toBe('open');
    expect(health.millisUntilAvailable(['a'])).toBe(30_000);
    // A probe that learned nothing (the client went away) leaves it half-open for the next one.
    time.now += 30_000;
    const second = health.begin('a');
    health.end(second, 'unknown', BREAKER);
    expect(health.stateOf('a')).toBe('half-open');
    expect(health.isAvailable('a')).toBe(true);
  });

  it('does not extend an open period by the late failures of requests that began before it opened', () => {
    const { time, health } = clock();
    const late = health.begin('a');
    for (let i = 0; i < 3; i++) health.end(health.begin('a'), 'failed', BREAKER);
    time.now += 20_000;
    health.end(late, 'failed', BREAKER);
    expect(health.millisUntilAvailable(['a'])).toBe(10_000);
  });

  it('counts requests in flight per target, and forgets a target with nothing to remember', () => {
    const { health } = clock();
    const one = health.begin('a');
    const two = health.begin('a');
    health.begin('b');
    expect(health.inFlight('a')).toBe(2);
    expect(health.inFlight('b')).toBe(1);
    health.end(one, 'healthy', BREAKER);
    health.end(two, 'healthy', BREAKER);
    expect(health.inFlight('a')).toBe(0);
    expect(health.stateOf('a')).toBe('closed');
  });

  it('says how long until the soonest of several targets is available (0 when one is)', () => {
    const { time, health } = clock();
    const single = { consecutiveFailures: 1, openSeconds: 10 };
    health.end(health.begin('a'), 'failed', single);
    time.now += 4000;
    health.end(health.begin('b'), 'failed', { consecutiveFailures: 1, openSeconds: 30 });
    expect(health.millisUntilAvailable(['a', 'b'])).toBe(6000);
    expect(health.millisUntilAvailable(['a', 'b', 'c'])).toBe(0);
  });

  it('keys a target by its route (tenant, workspace, model) and its model string', () => {
    const route = { tenantId: 't1', model: 'chat', targets: [] } as unknown as ModelRouteRecord;
    const workspaceRoute = { ...route, workspaceId: 'w1' } as ModelRouteRecord;
    const key = targetKey(route, { model: 'openai/gpt-4o', weight: 1, priority: 0 });
    const other = targetKey(workspaceRoute, { model: 'openai/gpt-4o', weight: 1, priority: 0 });
    expect(key).not.toBe(other);
    expect(key).toContain('openai/gpt-4o');
  });
});
