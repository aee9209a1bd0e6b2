/** OpenAI `stop` (a string or up to four) -> the stop-sequence list of Anthropic and Converse. */

/** Empty sequences are dropped: neither upstream takes them, and they could never match. */
export function convertStopSequences(stop: string | string[] | null | undefined): string[] {
  if (typeof stop === 'string') return stop === '' ? [] : [stop];
  return Array.isArray(stop)
    ? stop.filter((sequence) => typeof sequence === 'string' && sequence !== '')
    : [];
}
