/** Reading a translator's `__fixtures__` folder in tests; the folders and names are in ../FIXTURES.md. */
import { readFileSync } from 'node:fs';

export type FixtureFolder =
  | 'anthropic-to-openai'
  | 'openai-to-anthropic'
  | 'openai-to-bedrock'
  | 'openai-to-gemini'
  | 'responses-to-chat';

export interface TranslatorFixtures {
  text(name: string): string;
  json<T = unknown>(name: string): T;
  /** A `.chunks.txt` fixture: one event per line, blank lines skipped. */
  lines(name: string): string[];
}

export function translatorFixtures(folder: FixtureFolder): TranslatorFixtures {
  const directory = new URL(`../${folder}/__fixtures__/`, import.meta.url);
  const text = (name: string): string => readFileSync(new URL(name, directory), 'utf8');
  return {
    text,
    json: <T>(name: string): T => JSON.parse(text(name)) as T,
    lines: (name) =>
      text(name)
        .split('\n')
        .filter((line) => line.trim() !== ''),
  };
}

/** The `get_weather` parameters of the `tools.request.json` fixtures (openai-to-anthropic, openai-to-bedrock). */
export const WEATHER_SCHEMA = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'City name, e.g. Paris' },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
  },
  required: ['city'],
  additionalProperties: false,
};
