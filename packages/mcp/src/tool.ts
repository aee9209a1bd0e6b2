/**
 * What a tool is, and what it answers: every tool of this server is a `ToolDefinition` (a zod input
 * shape, a zod shape of its successful result, annotations and a `run` function), and every answer
 * is either a success (a short summary plus the result as structured content) or a coded error
 * (`isError: true`, text `<code>: <message>`, structured content `{ error: { code, message } }`).
 */
import { AdminApiError, AdminError, UsdAmountError } from '@inference-gateway/admin';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** The code of an input this server refuses itself, before calling the control plane. */
export const VALIDATION_ERROR = 'VALIDATION_ERROR';
/** The code of a failure that is neither the control plane's nor the caller's (a bug of this server). */
export const INTERNAL_ERROR = 'INTERNAL_ERROR';

/** The `error` of a failed call's structured content. */
export const ToolErrorSchema = z
  .object({
    code: z
      .string()
      .describe(
        "The control plane's code (VALIDATION_ERROR, UNAUTHENTICATED, FORBIDDEN, NOT_FOUND, CONFLICT, TENANT_SUSPENDED, RATE_LIMITED, ...), a transport failure (NETWORK_ERROR, TIMEOUT, ABORTED, UNEXPECTED_RESPONSE), or VALIDATION_ERROR for arguments this server refused.",
      ),
    message: z.string().describe('What went wrong, in words; never contains a secret.'),
    retryable: z.boolean().optional().describe('Whether the same call may succeed later.'),
    fields: z.array(z.string()).optional().describe('The arguments at fault, when known.'),
  })
  .describe('Present instead of the result when the call failed (isError: true).');

export type ToolError = z.infer<typeof ToolErrorSchema>;

/** An argument this server refuses (a USD amount it cannot convert, two ways of saying one thing). */
export class ToolInputError extends Error {
  readonly code = VALIDATION_ERROR;
  readonly fields: readonly string[] | undefined;

  constructor(message: string, fields?: readonly string[]) {
    super(message);
    this.name = 'ToolInputError';
    this.fields = fields;
  }
}

/** What a tool's `run` gets besides its arguments. */
export interface ToolContext {
  /** Aborted when the client cancels the call or disconnects. */
  signal: AbortSignal;
}

/** A successful call: a sentence for people and models, and the result for programs. */
export interface ToolOutcome<Result> {
  summary: string;
  result: Result;
}

/** Shapes of zod schemas keyed by argument or result field name. */
export type Shape = z.ZodRawShape;

/**
 * One tool. `input` becomes the tool's JSON Schema (and is validated strictly: an unknown argument
 * is refused); `output` is the shape of a successful result, each key present on success;
 * `secretInputs` names the arguments whose values must never appear in a result.
 */
export interface ToolDefinition<Input extends Shape = Shape, Output extends Shape = Shape> {
  name: string;
  title: string;
  /** What the tool does, when to use it, and what it returns: written for a model to act on. */
  description: string;
  input: Input;
  output: Output;
  annotations: ToolAnnotations;
  secretInputs?: readonly (keyof Input & string)[];
  run(
    args: z.output<z.ZodObject<Input>>,
    context: ToolContext,
  ): Promise<ToolOutcome<z.input<z.ZodObject<Output>>>>;
}

/** Declares a tool (an identity function that lets TypeScript infer the argument and result types). */
export function defineTool<Input extends Shape, Output extends Shape>(
  definition: ToolDefinition<Input, Output>,
): ToolDefinition<Input, Output> {
  return definition;
}

/** Annotations of a tool that only reads. */
export const READS: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
/** Annotations of a tool that adds something new on every call (a key, a token, a tenant). */
export const CREATES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
/** Annotations of a tool that creates or replaces a named thing (the same call twice changes nothing more). */
export const REPLACES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};
/** Annotations of a tool that deletes, revokes or invalidates (again: nothing more happens). */
export const REMOVES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};

/**
 * The output schema of a tool: its result keys, or `error` instead. The JSON Schema says "exactly one
 * of the two" (`oneOf`), because MCP clients validate the structured content of error results too.
 */
export function resultSchema(output: Shape): z.ZodObject {
  const optional = Object.fromEntries(
    Object.entries(output).map(([key, schema]) => [key, z.optional(schema)]),
  );
  return z.object({ ...optional, error: ToolErrorSchema.optional() }).meta({
    oneOf: [{ required: Object.keys(output) }, { required: ['error'] }],
  });
}

/** A successful call's answer: the summary, the result as JSON text (for clients without structured content), and the result. */
export function successResult(outcome: ToolOutcome<Record<string, unknown>>): CallToolResult {
  return {
    content: [
      { type: 'text', text: outcome.summary },
      { type: 'text', text: JSON.stringify(outcome.result, null, 2) },
    ],
    structuredContent: outcome.result,
  };
}

/** A failed call's answer: a tool error, never a protocol error. */
export function errorResult(error: ToolError): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${error.code}: ${error.message}` }],
    structuredContent: { error },
  };
}

/** The coded error of anything a tool's run threw. */
export function toolErrorOf(error: unknown): ToolError {
  if (error instanceof AdminError) {
    const fields = error instanceof AdminApiError ? error.fields : undefined;
    return {
      code: error.code,
      message: error.message,
      retryable: error.retryable,
      ...(fields === undefined || fields.length === 0 ? {} : { fields: [...fields] }),
    };
  }
  if (error instanceof ToolInputError) {
    return {
      code: error.code,
      message: error.message,
      retryable: false,
      ...(error.fields === undefined ? {} : { fields: [...error.fields] }),
    };
  }
  if (error instanceof UsdAmountError)
    return { code: VALIDATION_ERROR, message: error.message, retryable: false };
  return {
    code: INTERNAL_ERROR,
    message: error instanceof Error ? error.message : String(error),
    retryable: false,
  };
}

/** The coded error of arguments that do not fit a tool's input schema. */
export function validationErrorOf(error: z.ZodError): ToolError {
  const problems = error.issues.map((issue) =>
    issue.path.length === 0 ? issue.message : `${issue.path.join('.')}: ${issue.message}`,
  );
  const fields = [
    ...new Set(
      error.issues.flatMap((issue) =>
        issue.code === 'unrecognized_keys' ? issue.keys : issue.path.slice(0, 1).map(String),
      ),
    ),
  ];
  return {
    code: VALIDATION_ERROR,
    message: `invalid arguments: ${problems.join('; ')}`,
    retryable: false,
    ...(fields.length === 0 ? {} : { fields }),
  };
}
