/**
 * The one way the code waits with a deadline: `work`'s outcome, or what the deadline decides once
 * `ms` have passed without one. The work itself goes on; a late failure of it is not left
 * unhandled. One promise and one timer per call, since the cache bounds every store call with it.
 */

function settleWithin<T, F>(
  work: Promise<T>,
  ms: number,
  expire: (resolve: (value: F) => void, reject: (error: unknown) => void) => void,
): Promise<T | F> {
  return new Promise<T | F>((resolve, reject) => {
    const timer = setTimeout(() => expire(resolve, reject), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * `work`'s result, or `fallback` once `ms` have passed. For the waits a stalled Redis must not hold
 * forever: a probe, a readiness check, a polite QUIT, the migration at start.
 */
export function waitAtMost<T, F>(work: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  return settleWithin<T, F>(work, ms, (resolve) => resolve(fallback));
}

/** `work`'s result, or the error `timedOut` makes once `ms` have passed (the cache's store calls). */
export function failAfter<T>(work: Promise<T>, ms: number, timedOut: () => Error): Promise<T> {
  return settleWithin<T, never>(work, ms, (_resolve, reject) => reject(timedOut()));
}
