/**
 * Tool-call helpers every translator needs where OpenAI's tool calls meet a shape whose tool use
 * carries an object input (Anthropic `tool_use`, Bedrock `toolUse`, Gemini `functionCall`):
 * reference/providers.md section 1, "assistant `tool_calls`", and the tool-use id rule of section 2.
 */

/**
 * OpenAI tool-call arguments are a JSON string; the other shapes want an object. Anything but a
 * JSON object (empty, unparseable, an array, a scalar) becomes `{}`, the reference's "invalid JSON
 * → `{}`": a model that wrote broken arguments still gets its call replayed, not a 400.
 */
export function parseToolArguments(text: unknown): Record<string, unknown> {
  if (typeof text !== 'string' || text === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** The other way: a tool-use input object as OpenAI's `arguments` string; a missing input is `{}`. */
export function stringifyToolInput(input: unknown): string {
  return JSON.stringify(input ?? {});
}

/**
 * Tool-use ids must match `^[a-zA-Z0-9_-]+$` on Anthropic and Bedrock, and ids from other
 * upstreams (`functions.get_weather:1`) do not. Every other character becomes `_`, so a call and
 * the result that answers it still map to the same id. `fallback` stands in for an id with nothing
 * left; `maxLength` is the upstream's cap, where it has one (Bedrock: 64).
 */
export function sanitizeToolId(id: string, fallback: string, maxLength?: number): string {
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, '_');
  const capped = maxLength === undefined ? clean : clean.slice(0, maxLength);
  return capped === '' ? fallback : capped;
}
