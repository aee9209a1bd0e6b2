import { describe, expect, it } from 'vitest';
import { parseBalanceInfo, parseCacheInfo, parseResponseInfo } from './response-info.ts';
import { parseRouting } from './routing.ts';

/** Headers as a plain object with `get`: what any fetch implementation's Headers offer. */
function headers(values: Record<string, string>) {
  const lower = new Map(Object.entries(values).map(([name, value]) => [name.toLowerCase(), value]));
  return { get: (name: string) => lower.get(name.toLowerCase()) ?? null };
}

describe('parseRouting', () => {
  it('reads a BYOK answer: byok, credential id, slug, and the deprecated label alias', () => {
    expect(
      parseRouting(
        headers({
          'X-Service-BYOK': 'true',
          'X-Service-Credential-Id': 'default/mine',
          'X-Service-Credential-Slug': 'mine',
          'X-Service-Credential-Label': 'mine',
        }),
      ),
    ).toEqual({ byok: true, credentialId: 'default/mine', connectionSlug: 'mine', credentialLabel: 'mine' });
  });

  it('falls back to X-Service-Credential-Label when the slug header is absent', () => {
    const routing = parseRouting(
      headers({ 'x-service-byok': 'true', 'x-service-credential-label': 'older' }),
    );
    expect(routing?.connectionSlug).toBe('older');
    expect(routing?.credentialLabel).toBe('older');
  });

  it('prefers the slug header over the label header', () => {
    const routing = parseRouting(
      headers({
        'x-service-byok': 'true',
        'x-service-credential-slug': 'new',
        'x-service-credential-label': 'old',
      }),
    );
    expect(routing).toMatchObject({ connectionSlug: 'new', credentialLabel: 'new' });
  });

  it('reads platform traffic as byok false, with no credential', () => {
    expect(parseRouting(headers({ 'x-service-byok': 'false' }))).toEqual({ byok: false });
  });

  it('reads the byok value without regard to case', () => {
    expect(parseRouting(headers({ 'x-service-byok': 'TRUE' }))?.byok).toBe(true);
  });

  it("reads a model route's headers: the route, the target that served, the attempts", () => {
    expect(
      parseRouting(
        headers({
          'x-service-byok': 'false',
          'x-service-route': 'chat-default',
          'x-service-route-target': 'groq/llama-3.1-8b-instant',
          'x-service-route-attempts': '2',
        }),
      ),
    ).toEqual({
      byok: false,
      route: { model: 'chat-default', target: 'groq/llama-3.1-8b-instant', attempts: 2 },
    });
    // A route with every circuit open answers 503 with the route headers alone.
    expect(
      parseRouting(headers({ 'x-service-route': 'chat-default', 'x-service-route-attempts': '0' }))?.route,
    ).toEqual({ model: 'chat-default', attempts: 0 });
    expect(parseRouting(headers({ 'x-service-byok': 'false' }))?.route).toBeUndefined();
  });

  it('is undefined when no routing header is present', () => {
    expect(parseRouting(headers({ 'content-type': 'application/json' }))).toBeUndefined();
  });
});

describe('parseCacheInfo', () => {
  it('reads a hit with its age', () => {
    expect(parseCacheInfo(headers({ 'x-service-cache': 'hit', 'x-service-cache-age': '12' }))).toEqual({
      status: 'hit',
      served: true,
      ageSeconds: 12,
    });
  });

  it('reads a semantic hit with its similarity', () => {
    expect(
      parseCacheInfo(headers({ 'x-service-cache': 'semantic-hit', 'x-service-cache-similarity': '0.941' })),
    ).toEqual({ status: 'semantic-hit', served: true, similarity: 0.941 });
  });

  it.each([
    ['miss', false],
    ['refresh', false],
    ['stale', true],
  ])('reads %s (served from the cache: %s)', (status, served) => {
    expect(parseCacheInfo(headers({ 'x-service-cache': status }))).toEqual({ status, served });
  });

  it('passes a value of a newer gateway through', () => {
    expect(parseCacheInfo(headers({ 'x-service-cache': 'prefetched' }))).toEqual({
      status: 'prefetched',
      served: false,
    });
  });

  it('is undefined when the answer has no cache header (not cacheable, or off)', () => {
    expect(parseCacheInfo(headers({}))).toBeUndefined();
  });

  it('ignores an age or similarity that is not a number', () => {
    expect(
      parseCacheInfo(
        headers({
          'x-service-cache': 'hit',
          'x-service-cache-age': 'soon',
          'x-service-cache-similarity': 'x',
        }),
      ),
    ).toEqual({ status: 'hit', served: true });
  });
});

describe('parseBalanceInfo', () => {
  it('reads a prepaid charge', () => {
    expect(
      parseBalanceInfo(
        headers({
          'X-Service-Balance-Mode': 'prepaid',
          'X-Service-Balance-Charged-Micros': '1500',
          'X-Service-Balance-Remaining-Micros': '99998500',
          'X-Service-Balance-Currency': 'USD',
        }),
      ),
    ).toEqual({
      mode: 'prepaid',
      chargedMicros: 1500,
      chargeDeferred: false,
      remainingMicros: 99_998_500,
      currency: 'USD',
    });
  });

  it('reads a deferred charge (streams) as chargeDeferred with no amount', () => {
    const balance = parseBalanceInfo(
      headers({
        'x-service-balance-mode': 'prepaid',
        'x-service-balance-charged-micros': 'deferred',
        'x-service-balance-remaining-micros': '5000',
        'x-service-balance-currency': 'USD',
      }),
    );
    expect(balance).toEqual({
      mode: 'prepaid',
      chargeDeferred: true,
      remainingMicros: 5000,
      currency: 'USD',
    });
    expect(balance).not.toHaveProperty('chargedMicros');
  });

  it('reads postpaid without a remaining balance, and a negative remaining balance', () => {
    expect(
      parseBalanceInfo(
        headers({ 'x-service-balance-mode': 'postpaid', 'x-service-balance-charged-micros': '0' }),
      ),
    ).toEqual({ mode: 'postpaid', chargedMicros: 0, chargeDeferred: false });
    expect(
      parseBalanceInfo(
        headers({ 'x-service-balance-mode': 'prepaid', 'x-service-balance-remaining-micros': '-20' }),
      )?.remainingMicros,
    ).toBe(-20);
  });

  it('is undefined without balance headers (error answers)', () => {
    expect(parseBalanceInfo(headers({ 'x-service-byok': 'false' }))).toBeUndefined();
  });
});

describe('parseResponseInfo', () => {
  it('gathers status, routing, cache and balance', () => {
    expect(
      parseResponseInfo({
        status: 200,
        headers: headers({
          'x-service-byok': 'false',
          'x-service-cache': 'miss',
          'x-service-balance-mode': 'postpaid',
          'x-service-balance-charged-micros': '7',
        }),
      }),
    ).toEqual({
      status: 200,
      routing: { byok: false },
      cache: { status: 'miss', served: false },
      balance: { mode: 'postpaid', chargedMicros: 7, chargeDeferred: false },
    });
  });

  it('holds only the status when the gateway said nothing else', () => {
    expect(parseResponseInfo({ status: 401, headers: headers({}) })).toEqual({ status: 401 });
  });
});
