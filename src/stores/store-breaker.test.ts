import { describe, expect, it } from 'vitest';
import { createLogger } from '../observability/logger.ts';
import { isUnavailability, StoreBreaker, StoreTimeoutError, StoreUnavailableError } from './store-breaker.ts';

const logLines: string[] = [];
const log = createLogger('info', 'breaker', {
  write: (line: string) => {
    logLines.push(line);
  },
});

const connectionRefused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });

describe('isUnavailability', () => {
  it('tells an unreachable backend from a refused argument or a reply error', () => {
    expect(isUnavailability(connectionRefused())).toBe(true);
    expect(isUnavailability(new StoreUnavailableError('runtime'))).toBe(true);
    expect(isUnavailability(new TypeError('bad key'))).toBe(false);
    expect(isUnavailability(Object.assign(new Error('ERR syntax'), { name: 'ReplyError' }))).toBe(false);
  });

  it('counts a server that cannot serve (a demoted master, one loading its data, a cluster that is down) as unreachable: it ran nothing', () => {
    const reply = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' });
    expect(isUnavailability(reply("READONLY You can't write against a read only replica."))).toBe(true);
    expect(isUnavailability(reply('LOADING Redis is loading the dataset in memory'))).toBe(true);
    expect(
      isUnavailability(
        reply('MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to no'),
      ),
    ).toBe(true);
    expect(isUnavailability(reply('NOREPLICAS Not enough good replicas to write.'))).toBe(true);
    expect(isUnavailability(reply('CLUSTERDOWN The cluster is down'))).toBe(true);
    expect(isUnavailability(reply('TRYAGAIN Multiple keys request during rehashing of slot'))).toBe(true);
    expect(isUnavailability(reply('WRONGTYPE Operation against a key holding the wrong kind of value'))).toBe(
      false,
    );
    expect(isUnavailability(reply('ERR READONLY is not a prefix here'))).toBe(false);
  });

  it('counts a transaction such a server refused as unreachable, and one refused for a bad command not', () => {
    const reply = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' });
    const aborted = (...previous: string[]) =>
      Object.assign(reply('EXECABORT Transaction discarded because of previous errors.'), {
        previousErrors: previous.map(reply),
      });
    expect(isUnavailability(aborted('NOREPLICAS Not enough good replicas to write.'))).toBe(true);
    expect(
      isUnavailability(aborted('CLUSTERDOWN The cluster is down', 'CLUSTERDOWN The cluster is down')),
    ).toBe(true);
    expect(
      isUnavailability(
        aborted(
          "READONLY You can't write against a read only replica.",
          "READONLY You can't write against a read only replica.",
        ),
      ),
    ).toBe(true);
    expect(isUnavailability(aborted("ERR wrong number of arguments for 'expire' command"))).toBe(false);
    expect(
      isUnavailability(aborted('NOREPLICAS Not enough good replicas to write.', 'ERR syntax error')),
    ).toBe(false);
    expect(isUnavailability(aborted())).toBe(false);
  });
});

describe('StoreBreaker', () => {
  it('opens at the first unreachable call, fails fast while open, and closes when a probe answers', async () => {
    logLines.length = 0;
    let backendUp = false;
    let probed!: () => void;
    const firstProbe = new Promise<void>((resolve) => {
      probed = resolve;
    });
    const breaker = new StoreBreaker({
      name: 'runtime',
      probeIntervalMs: 5,
      log,
      probe: async () => {
        probed();
        return backendUp;
      },
    });
    let recovered!: () => void;
    const recovery = new Promise<void>((resolve) => {
      recovered = resolve;
    });
    breaker.onRecovered(async () => recovered());

    await expect(breaker.call(async () => Promise.reject(connectionRefused()))).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    expect(breaker.open).toBe(true);
    let calls = 0;
    for (let index = 0; index < 100; index += 1) {
      await expect(
        breaker.call(async () => {
          calls += 1;
        }),
      ).rejects.toBeInstanceOf(StoreUnavailableError);
    }
    // Open: the backend is not called at all.
    expect(calls).toBe(0);

    await firstProbe;
    backendUp = true;
    await recovery;
    expect(breaker.open).toBe(false);
    expect(await breaker.call(async () => 'answered')).toBe('answered');
    expect(breaker.outages).toBe(1);
    // One line per state change, not one per refused call.
    expect(logLines.filter((line) => line.includes('unreachable'))).toHaveLength(1);
    expect(logLines.filter((line) => line.includes('reachable again'))).toHaveLength(1);
    breaker.stop();
  });

  it('stays closed on errors the backend answered (a bad argument is the caller’s, not an outage)', async () => {
    const breaker = new StoreBreaker({ name: 'runtime', log, probe: async () => true });
    await expect(breaker.call(async () => Promise.reject(new TypeError('bad key')))).rejects.toBeInstanceOf(
      TypeError,
    );
    expect(breaker.open).toBe(false);
    expect(breaker.outages).toBe(0);
    breaker.stop();
  });

  it('turns an operation that throws before it returns a promise into a rejection, judged the same way', async () => {
    const breaker = new StoreBreaker({ name: 'runtime', log, probe: async () => false });
    const badArgument = breaker.call<string>(() => {
      throw new TypeError('bad key');
    });
    await expect(badArgument).rejects.toBeInstanceOf(TypeError);
    expect(breaker.open).toBe(false);
    const unreachable = breaker.call<string>(() => {
      throw connectionRefused();
    });
    await expect(unreachable).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(breaker.open).toBe(true);
    breaker.stop();
  });

  it('gives up on a call that does not answer within callTimeoutMs, opens, and hands the call itself on', async () => {
    let answer!: (value: string) => void;
    const late = new Promise<string>((resolve) => {
      answer = resolve;
    });
    const breaker = new StoreBreaker({ name: 'runtime', log, callTimeoutMs: 20, probe: async () => false });
    const call = breaker.call(() => late);
    const error = await call.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(StoreTimeoutError);
    expect(isUnavailability(error)).toBe(true);
    expect(breaker.open).toBe(true);
    // The call goes on: whoever must know whether it took effect follows its outcome.
    answer('applied late');
    await expect((error as StoreTimeoutError).outcome).resolves.toBe('applied late');
    // A call that answers in time is not affected, and a late failure is not left unhandled.
    const quick = new StoreBreaker({ name: 'runtime', log, callTimeoutMs: 1000, probe: async () => true });
    expect(await quick.call(async () => 'in time')).toBe('in time');
    await expect(quick.call(async () => Promise.reject(new TypeError('bad key')))).rejects.toBeInstanceOf(
      TypeError,
    );
    breaker.stop();
    quick.stop();
  });

  it('bounds a probe by callTimeoutMs: a backend that never answers one is probed again', async () => {
    let probes = 0;
    let thirdProbe!: () => void;
    const probedThrice = new Promise<void>((resolve) => {
      thirdProbe = resolve;
    });
    const breaker = new StoreBreaker({
      name: 'runtime',
      log,
      callTimeoutMs: 10,
      probeIntervalMs: 5,
      probe: () => {
        probes += 1;
        if (probes === 3) thirdProbe();
        // A stalled backend: the probe's answer never comes.
        return new Promise<boolean>(() => {});
      },
    });
    breaker.trip(connectionRefused());
    await probedThrice;
    expect(breaker.open).toBe(true);
    breaker.stop();
  });

  it('times each call out at its own deadline with one timer: answered calls leave, later ones still expire', async () => {
    const breaker = new StoreBreaker({ name: 'runtime', log, callTimeoutMs: 30, probe: async () => false });
    const never = () => new Promise<string>(() => {});
    const settled = (promise: Promise<unknown>) =>
      promise.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
    const first = settled(breaker.call(never));
    const answered = settled(breaker.call(async () => 'answered'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    const second = settled(breaker.call(never));
    expect(await answered).toEqual({ value: 'answered' });
    const firstOutcome = await first;
    expect(firstOutcome).toHaveProperty('error');
    expect((firstOutcome as { error: unknown }).error).toBeInstanceOf(StoreTimeoutError);
    // Still in flight when the first expired (and the breaker opened): it expires at its own deadline.
    const secondOutcome = await second;
    expect((secondOutcome as { error: unknown }).error).toBeInstanceOf(StoreTimeoutError);
    expect(breaker.open).toBe(true);
    breaker.stop();
  });
});
