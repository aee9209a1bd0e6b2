/**
 * A word list keyed by the words of a question, without Object.prototype behind it: an object
 * literal answers `table["constructor"]` with Object's constructor function, so a question saying
 * "constructor" threw in the guard ("folded.split is not a function") and failed its request.
 */
export function wordTable<T>(entries: Readonly<Record<string, T>>): Readonly<Record<string, T>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));
}
