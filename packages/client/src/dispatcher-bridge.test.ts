import { describe, expect, it, vi } from 'vitest';
import { bridgeDispatcher } from './dispatcher-bridge.ts';

type Handler = Record<string, (...args: unknown[]) => unknown>;

/** A dispatcher of undici 8's kind: it refuses handlers without onRequestStart, before sending. */
function modernDispatcher() {
  const received: Handler[] = [];
  return {
    received,
    closed: false,
    dispatch(_options: unknown, handler: Handler) {
      if (typeof handler.onRequestStart !== 'function') {
        throw Object.assign(new Error('invalid onRequestStart method'), { code: 'UND_ERR_INVALID_ARG' });
      }
      received.push(handler);
      return true;
    },
    async close() {
      this.closed = true;
    },
  };
}

function controller() {
  return { abort: vi.fn(), pause: vi.fn(), resume: vi.fn() };
}

const text = (raw: unknown[]) => raw.map((part) => (part as Buffer).toString('latin1'));

describe('bridgeDispatcher', () => {
  it('returns what is not a dispatcher as it is', () => {
    expect(bridgeDispatcher(undefined)).toBeUndefined();
    const notOne = { name: 'x' };
    expect(bridgeDispatcher(notOne)).toBe(notOne);
  });

  it('passes a handler of the newer shape through untouched', () => {
    const dispatcher = modernDispatcher();
    const handler = { onRequestStart: () => {}, onResponseError: () => {} };
    (bridgeDispatcher(dispatcher) as typeof dispatcher).dispatch({}, handler);
    expect(dispatcher.received[0]).toBe(handler);
  });

  it('passes a legacy handler through untouched when the dispatcher accepts it', () => {
    const seen: unknown[] = [];
    const legacyDispatcher = { dispatch: (_options: unknown, handler: unknown) => seen.push(handler) };
    const handler = { onConnect: () => {}, onHeaders: () => true };
    (bridgeDispatcher(legacyDispatcher) as typeof legacyDispatcher).dispatch({}, handler);
    expect(seen).toEqual([handler]);
  });

  it('adapts a legacy handler that the dispatcher refuses, call by call', () => {
    const dispatcher = modernDispatcher();
    const calls: unknown[][] = [];
    const record =
      (name: string, answer?: unknown) =>
      (...args: unknown[]) => {
        calls.push([name, ...args]);
        return answer;
      };
    const legacy = {
      onConnect: record('onConnect'),
      onResponseStarted: record('onResponseStarted'),
      onHeaders: record('onHeaders', false),
      onData: record('onData', false),
      onComplete: record('onComplete'),
      onError: record('onError'),
    };
    (bridgeDispatcher(dispatcher) as typeof dispatcher).dispatch({}, legacy);
    const adapted = dispatcher.received[0] as Handler;
    const control = controller();

    adapted.onRequestStart?.(control, { context: 1 });
    const [, abort] = calls[0] as [string, (reason: unknown) => void];
    abort('stop');
    expect(control.abort).toHaveBeenCalledWith('stop');

    adapted.onResponseStart?.(
      control,
      200,
      { 'content-type': 'application/json', 'set-cookie': ['a', 'b'] },
      'OK',
    );
    const headersCall = calls.find(([name]) => name === 'onHeaders') as unknown[];
    expect(headersCall[1]).toBe(200);
    expect(text(headersCall[2] as unknown[])).toEqual([
      'content-type',
      'application/json',
      'set-cookie',
      'a',
      'set-cookie',
      'b',
    ]);
    expect(headersCall[4]).toBe('OK');
    // onHeaders answered false: paused until the legacy side calls resume.
    expect(control.pause).toHaveBeenCalledTimes(1);
    (headersCall[3] as () => void)();
    expect(control.resume).toHaveBeenCalledTimes(1);

    adapted.onResponseData?.(control, Buffer.from('{}'));
    expect(control.pause).toHaveBeenCalledTimes(2);
    adapted.onResponseEnd?.(control, { trailer: 'x' });
    const error = new Error('boom');
    adapted.onResponseError?.(control, error);
    expect(calls.map(([name]) => name)).toEqual([
      'onConnect',
      'onResponseStarted',
      'onHeaders',
      'onData',
      'onComplete',
      'onError',
    ]);
    expect(text(calls[4]?.[1] as unknown[])).toEqual(['trailer', 'x']);
    expect(calls[5]?.[1]).toBe(error);
  });

  it('rethrows other errors of the dispatcher', () => {
    const failing = {
      dispatch() {
        throw new Error('closed');
      },
    };
    expect(() => (bridgeDispatcher(failing) as typeof failing).dispatch()).toThrow('closed');
  });

  it("keeps the dispatcher's other members, and bridges each dispatcher once", async () => {
    const dispatcher = modernDispatcher();
    const bridge = bridgeDispatcher(dispatcher) as typeof dispatcher;
    expect(bridgeDispatcher(dispatcher)).toBe(bridge);
    await bridge.close();
    expect(dispatcher.closed).toBe(true);
  });
});
