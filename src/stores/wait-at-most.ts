/**
 * `work`'s result, or `fallback` once `ms` have passed without one (the work itself goes on; a
 * late failure of it is not left unhandled). For the waits a stalled Redis must not hold forever:
 * a probe, a readiness check, a polite QUIT, the migration at start.
 */
export async function waitAtMost<T, F>(work: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  try {
    return await Promise.race([work, gaveUp]);
  } finally {
    clearTimeout(timer);
  }
}
