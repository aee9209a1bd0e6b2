/**
 * Deprecation warnings, each said once per process (or page) through `console.warn`, which exists
 * in Node and in browsers alike.
 */
const warned = new Set<string>();

/** Warns once under `key`; later calls with the same key say nothing. */
export function warnOnce(key: string, message: string): void {
  if (warned.has(key)) return;
  warned.add(key);
  console.warn(`[@inference-gateway/client] ${message}`);
}

/** Forgets which warnings were given (for tests; not part of the public API). */
export function resetDeprecationWarnings(): void {
  warned.clear();
}
