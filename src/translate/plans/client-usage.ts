/**
 * Usage as the client's own shape reports it, and whether the client asked for it on a stream.
 */
import type { ClientDialect } from '../../shapes/api.ts';
import { parseAnthropicUsage, parseOpenAiUsage, type TokenUsage } from '../../shapes/usage.ts';

/** The usage of an answer object in the client's shape. */
export function usageOfAnswer(answer: unknown, dialect: ClientDialect): TokenUsage | undefined {
  const usage = (answer as { usage?: unknown } | null)?.usage;
  return dialect === 'anthropic' ? parseAnthropicUsage(usage) : parseOpenAiUsage(usage);
}

/**
 * The usage of an answer's text in the client's shape (undefined when it is not JSON). Only the
 * top-level `usage` value is parsed when it can be found off the text (see topLevelUsageText), which
 * both providers write near the end of the answer: parsing a whole answer to read it cost several
 * microseconds a request. Otherwise the whole text is parsed.
 */
export function readClientUsage(text: string, dialect: ClientDialect): TokenUsage | undefined {
  try {
    const usageText = topLevelUsageText(text);
    return usageText === undefined
      ? usageOfAnswer(JSON.parse(text), dialect)
      : usageOfAnswer({ usage: JSON.parse(usageText) }, dialect);
  } catch {
    return undefined;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The text of the value of the last `"usage"` key of a JSON object's text when that key belongs to
 * the outermost object, else undefined (then the caller parses the whole text). In JSON a quoted
 * `"usage"` whose opening quote is not escaped and which a colon follows is a key (inside a string
 * its quotes would be escaped), so only its depth is in doubt: the text after it is scanned,
 * strings skipped, and the key is the outermost object's when the first bracket closing more than
 * was opened after it is followed by nothing but whitespace. (The text before the key is not
 * checked: an answer malformed there has its usage read all the same, where a whole parse would
 * have estimated it.)
 */
export function topLevelUsageText(text: string): string | undefined {
  const key = text.lastIndexOf('"usage"');
  if (key === -1) return undefined;
  // Its opening quote escaped: the end of a longer key (`"a\"usage"`), left to a whole parse.
  let slashes = 0;
  while (text.charCodeAt(key - 1 - slashes) === BACKSLASH) slashes++;
  if (slashes % 2 === 1) return undefined;
  let at = key + '"usage"'.length;
  while (isJsonSpace(text.charCodeAt(at))) at++;
  if (text.charCodeAt(at) !== 0x3a /* : */) return undefined;
  at++;
  while (isJsonSpace(text.charCodeAt(at))) at++;
  const start = at;
  let end = -1;
  let depth = 0;
  for (; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      // A string: on to its closing quote (one not escaped).
      for (at++; at < text.length; at++) {
        const inner = text.charCodeAt(at);
        if (inner === BACKSLASH) at++;
        else if (inner === QUOTE) break;
      }
    } else if (code === 0x7b /* { */ || code === 0x5b /* [ */) {
      depth++;
    } else if (code === 0x7d /* } */ || code === 0x5d /* ] */) {
      if (depth === 0) {
        // The object holding the key closes here: the outermost one if nothing follows.
        if (code !== 0x7d) return undefined;
        if (end === -1) end = at;
        for (at++; at < text.length; at++) if (!isJsonSpace(text.charCodeAt(at))) return undefined;
        return text.slice(start, end);
      }
      depth--;
    } else if (code === 0x2c /* , */ && depth === 0 && end === -1) {
      end = at;
    }
  }
  return undefined;
}

function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/**
 * Whether the client wants a stream's usage: Anthropic streams always carry it; an OpenAI client
 * asks with `stream_options.include_usage`.
 */
export function wantsStreamUsage(dialect: ClientDialect, body: Record<string, unknown>): boolean {
  if (dialect === 'anthropic') return true;
  const options = body.stream_options as { include_usage?: unknown } | undefined | null;
  return options?.include_usage === true;
}
