/**
 * JSON output on upstreams without a native JSON mode for it: the gateway declares a tool, forces
 * the model to call it, and returns the call's input as the answer's content with finish reason
 * `stop` (reference/providers.md section 2, "forced tool `json`"; section 4 for Converse). Which
 * tool choice forces it is each upstream's own shape.
 */
import type { ChatResponseFormat } from '../../shapes/openai.ts';

/** The tool's name; a client tool of the same name pushes it to the next free variant (`json_2`, ...). */
export const JSON_TOOL_NAME = 'json';

/** The schema for `json_object` (and a `json_schema` without one): any object. */
export const ANY_OBJECT_SCHEMA = { type: 'object', additionalProperties: true };

export interface JsonOutputTool {
  name: string;
  description: string;
  schema: Record<string, unknown>;
}

function pickJsonToolName(takenNames: ReadonlySet<string>): string {
  if (!takenNames.has(JSON_TOOL_NAME)) return JSON_TOOL_NAME;
  for (let suffix = 2; ; suffix++)
    if (!takenNames.has(`${JSON_TOOL_NAME}_${suffix}`)) return `${JSON_TOOL_NAME}_${suffix}`;
}

/** The JSON tool a `json_schema` or `json_object` response format asks for; undefined for any other format. */
export function planJsonOutputTool(
  format: ChatResponseFormat | null | undefined,
  takenNames: Iterable<string>,
): JsonOutputTool | undefined {
  if (format?.type !== 'json_schema' && format?.type !== 'json_object') return undefined;
  const schemaFormat = format.type === 'json_schema' ? format.json_schema : undefined;
  return {
    name: pickJsonToolName(new Set(takenNames)),
    description:
      schemaFormat?.description ??
      'Answer with the final response as JSON by calling this tool with it as input.',
    schema: schemaFormat?.schema ?? ANY_OBJECT_SCHEMA,
  };
}
