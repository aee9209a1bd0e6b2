/**
 * The inference routes' JSON body parser: fastify's own (prototype-poisoning safe), behind a
 * nesting-depth limit. JSON.parse copes with any depth, but the recursive walks that follow it
 * (JSON.stringify, the cache key, the translators) overflow the stack on a body nested a few
 * thousand levels deep: that is the client's malformed input, a 400, never a 500.
 */
import type { FastifyInstance } from 'fastify';
import { InvalidRequestError } from '../errors/gateway-error.ts';

/** Real requests (JSON schemas in tools included) nest a few dozen levels at most. */
export const MAX_JSON_DEPTH = 128;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The deepest nesting of objects and arrays in a JSON text, stopping early past `limit`. */
export function measureJsonDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
    }
  }
  return deepest;
}

/**
 * Whether a JSON text nests deeper than `limit`. A text with no more opening brackets than the
 * limit cannot (brackets inside strings only add to the count): they are counted with indexOf,
 * which on a long body of mostly prose (a chat history) is many times quicker than the exact scan
 * of every character, left for the texts with more brackets than that.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let brackets = 0;
  for (let at = text.indexOf('{'); at !== -1 && brackets <= limit; at = text.indexOf('{', at + 1)) brackets++;
  for (let at = text.indexOf('['); at !== -1 && brackets <= limit; at = text.indexOf('[', at + 1)) brackets++;
  return brackets > limit && measureJsonDepth(text, limit) > limit;
}

/** Replaces the app's `application/json` parser with the depth-checked one. */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      done(
        new InvalidRequestError(`the JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`),
        undefined,
      );
      return;
    }
    parseJson(request, text, done);
  });
}
