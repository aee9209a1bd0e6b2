/**
 * Tools' cache declarations (specification 2.3): `x-service-cache: {safe, tags}` on a tool
 * definition declares it read-only and repeat-safe, and names the dependency tags of the answers
 * that used it, with `{placeholder}`s filled from each call's arguments. The declarations are the
 * gateway's (stripped before the upstream, cache-key.ts); this module reads them and the calls a
 * conversation made.
 */
import { InvalidRequestError } from '../errors/gateway-error.ts';
import type { ClientDialect } from '../shapes/api.ts';
import { TOOL_CACHE_DECLARATION } from './cache-key.ts';
import { TAG_PATTERN } from './cache-request.ts';

export interface ToolDeclaration {
  safe: boolean;
  /** Tag templates, e.g. `product:{id}`. */
  tags: string[];
}

/** A tool call of the conversation: the tool's name and its arguments (undefined when unreadable). */
export interface ToolCall {
  name: string;
  arguments: Record<string, unknown> | undefined;
}

/** What the conversation holds of tool use. */
export interface ToolUse {
  calls: ToolCall[];
  /** Tool results (OpenAI `role: tool`, Anthropic `tool_result` blocks). */
  results: number;
}

const MAX_TEMPLATE_TAGS = 16;
const PLACEHOLDER = /\{([A-Za-z0-9_.-]{1,64})\}/g;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toolName(tool: Record<string, unknown>): string | undefined {
  const named = isRecord(tool.function) ? tool.function.name : tool.name;
  return typeof named === 'string' ? named : undefined;
}

/** Tool name → declaration; a malformed declaration is the caller's 400. */
export function readToolDeclarations(body: Record<string, unknown>): Map<string, ToolDeclaration> {
  const declarations = new Map<string, ToolDeclaration>();
  if (!Array.isArray(body.tools)) return declarations;
  body.tools.forEach((tool: unknown, index) => {
    if (!isRecord(tool) || !(TOOL_CACHE_DECLARATION in tool)) return;
    const where = `tools[${index}].${TOOL_CACHE_DECLARATION}`;
    const declaration = tool[TOOL_CACHE_DECLARATION];
    if (!isRecord(declaration)) throw new InvalidRequestError(`${where} must be an object {safe, tags}`);
    const { safe, tags } = declaration;
    if (safe !== undefined && typeof safe !== 'boolean')
      throw new InvalidRequestError(`${where}.safe must be a boolean`);
    if (tags !== undefined && (!Array.isArray(tags) || tags.some((tag) => typeof tag !== 'string'))) {
      throw new InvalidRequestError(`${where}.tags must be a list of strings`);
    }
    if (Array.isArray(tags) && tags.length > MAX_TEMPLATE_TAGS) {
      throw new InvalidRequestError(`${where}.tags allows at most ${MAX_TEMPLATE_TAGS} tags`);
    }
    const name = toolName(tool);
    if (name !== undefined)
      declarations.set(name, { safe: safe === true, tags: (tags as string[] | undefined) ?? [] });
  });
  return declarations;
}

function parseArguments(raw: unknown): Record<string, unknown> | undefined {
  if (isRecord(raw)) return raw;
  if (typeof raw !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The tool calls and tool results of a conversation, in the client's dialect. */
export function readToolUse(body: Record<string, unknown>, dialect: ClientDialect): ToolUse {
  const use: ToolUse = { calls: [], results: 0 };
  if (!Array.isArray(body.messages)) return use;
  for (const message of body.messages) {
    if (!isRecord(message)) continue;
    if (dialect === 'openai') {
      if (message.role === 'tool' || message.role === 'function') use.results += 1;
      if (Array.isArray(message.tool_calls)) {
        for (const call of message.tool_calls) {
          const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined;
          use.calls.push({
            name: typeof fn?.name === 'string' ? fn.name : '',
            arguments: parseArguments(fn?.arguments),
          });
        }
      }
      if (isRecord(message.function_call)) {
        const fn = message.function_call;
        use.calls.push({
          name: typeof fn.name === 'string' ? fn.name : '',
          arguments: parseArguments(fn.arguments),
        });
      }
      continue;
    }
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (!isRecord(block)) continue;
      if (block.type === 'tool_result') use.results += 1;
      if (block.type === 'tool_use' || block.type === 'server_tool_use') {
        use.calls.push({
          name: typeof block.name === 'string' ? block.name : '',
          arguments: parseArguments(block.input),
        });
      }
    }
  }
  return use;
}

/** Whether every tool the conversation called is declared safe (no call: true). */
export function everyCallSafe(use: ToolUse, declarations: ReadonlyMap<string, ToolDeclaration>): boolean {
  if (use.results > 0 && use.calls.length === 0) return false;
  return use.calls.every((call) => declarations.get(call.name)?.safe === true);
}

/** A placeholder's value as a tag piece: lowercase, characters outside the tag charset as `-`. */
function tagPiece(value: unknown): string | undefined {
  if (value === undefined || value === null || typeof value === 'object') return undefined;
  return String(value)
    .toLowerCase()
    .replace(/[^a-z0-9._:-]/g, '-');
}

/**
 * The dependency tags the calls' declarations name, placeholders filled from each call's
 * arguments. Undefined when one cannot be made (a placeholder with no value, a tag outside the
 * charset): the answer then must not be cached, since no revalidation could reach it.
 */
export function interpolateToolTags(
  use: ToolUse,
  declarations: ReadonlyMap<string, ToolDeclaration>,
): string[] | undefined {
  // No call (most requests): nothing to make.
  if (use.calls.length === 0) return [];
  const tags = new Set<string>();
  for (const call of use.calls) {
    for (const template of declarations.get(call.name)?.tags ?? []) {
      let unresolved = false;
      const tag = template.replace(PLACEHOLDER, (_whole, name: string) => {
        const piece = tagPiece(call.arguments?.[name]);
        if (piece === undefined) unresolved = true;
        return piece ?? '';
      });
      if (unresolved || !TAG_PATTERN.test(tag)) return undefined;
      tags.add(tag);
    }
  }
  return [...tags];
}
