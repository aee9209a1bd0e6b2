/**
 * Puts tool definitions on an `McpServer`: `tools/list` is the SDK's (JSON Schemas made from the zod
 * shapes), `tools/call` is ours, so that every failure, bad arguments included, is a tool result
 * with a code (the SDK would answer bad arguments with an uncoded text) and so that no result
 * carries a secret the caller sent.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  errorResult,
  resultSchema,
  successResult,
  type ToolDefinition,
  type ToolOutcome,
  toolErrorOf,
  validationErrorOf,
} from './tool.ts';

/** A secret shorter than this is not searched for in results (it would match ordinary words). */
const MIN_REDACTED_LENGTH = 8;
const REDACTED = '[redacted]';

interface RegisteredTool {
  definition: ToolDefinition;
  input: z.ZodObject;
  /** Values none of its results may contain, besides those the call sends. */
  secrets: readonly string[];
}

/** The tools each server calls through our handler. */
const toolsOf = new WeakMap<McpServer, Map<string, RegisteredTool>>();

/**
 * Registers tools on a server (again for more). `secrets` are values no result of these tools may
 * contain (the server's own credentials); each call adds the values of the tool's `secretInputs`.
 * Only tools registered here can be called: this replaces the SDK's `tools/call` handler, so a
 * tool given to `server.registerTool` directly is listed but not found.
 */
export function registerTools(
  server: McpServer,
  definitions: readonly ToolDefinition[],
  secrets: readonly string[] = [],
): void {
  const tools = toolsOf.get(server) ?? new Map<string, RegisteredTool>();
  for (const definition of definitions) {
    if (tools.has(definition.name)) throw new Error(`two tools are named ${definition.name}`);
    const tool = { definition, input: z.strictObject(definition.input), secrets };
    tools.set(definition.name, tool);
    server.registerTool(
      definition.name,
      {
        title: definition.title,
        description: definition.description,
        inputSchema: tool.input,
        outputSchema: resultSchema(definition.output),
        annotations: { title: definition.title, ...definition.annotations },
      },
      (args: unknown, extra) => callTool(tool, args, extra.signal),
    );
  }
  if (toolsOf.has(server)) return;
  toolsOf.set(server, tools);
  // Replaces the SDK's tools/call handler (installed by the first registerTool): ours validates the
  // arguments itself, so that a mismatch becomes a VALIDATION_ERROR tool result with the fields.
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = tools.get(request.params.name);
    if (tool === undefined)
      throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
    return callTool(tool, request.params.arguments ?? {}, extra.signal);
  });
}

async function callTool(tool: RegisteredTool, args: unknown, signal: AbortSignal): Promise<CallToolResult> {
  const secrets = [...tool.secrets, ...secretValues(args, tool.definition.secretInputs ?? [])];
  const parsed = tool.input.safeParse(args);
  if (!parsed.success) return errorResult(redact(validationErrorOf(parsed.error), secrets));
  // Redacted before the result is serialised into the text block (where a secret would be escaped).
  try {
    const outcome = await tool.definition.run(parsed.data, { signal });
    return successResult(redact(outcome as ToolOutcome<Record<string, unknown>>, secrets));
  } catch (error) {
    return errorResult(redact(toolErrorOf(error), secrets));
  }
}

function secretValues(args: unknown, keys: readonly string[]): string[] {
  if (args === null || typeof args !== 'object') return [];
  const values = keys.map((key) => (args as Record<string, unknown>)[key]);
  return values.filter((value): value is string => typeof value === 'string');
}

/**
 * Replaces every occurrence of a secret in the strings of a value. Results are built from the admin
 * SDK's records, which carry no secrets; this is the guarantee for everything else (a message of
 * the service, a future field).
 */
export function redact<T>(value: T, secrets: readonly string[]): T {
  const searched = secrets.filter((secret) => secret.length >= MIN_REDACTED_LENGTH);
  if (searched.length === 0) return value;
  const visit = (node: unknown): unknown => {
    if (typeof node === 'string') {
      return searched.reduce((text, secret) => text.split(secret).join(REDACTED), node);
    }
    if (Array.isArray(node)) return node.map(visit);
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([key, entry]) => [key, visit(entry)]));
    }
    return node;
  };
  return visit(value) as T;
}
