/**
 * The provider registry: data, not a ladder of ifs (STYLE rule 10). A provider is an API shape
 * plus an endpoint plus auth (STYLE rule 1). The registry name is the model-name prefix
 * (`groq/llama-3.1-8b-instant`) and the environment prefix of its settings (`GROQ_API_KEY`,
 * `GROQ_BASE_URL`).
 */

import { bedrock, bedrockMantle } from './bedrock.ts';
import type { ProviderDefinition } from './types.ts';
import { vertex } from './vertex.ts';

const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

/**
 * An OpenAI-style provider. `responses`: it serves the Responses API itself (`/v1/responses`
 * passed through); the others get it translated through their chat completions.
 */
function openAiCompatible(
  name: string,
  defaultBaseUrl: string,
  embeddings = true,
  responses = false,
): ProviderDefinition {
  return {
    name,
    shape: 'openai',
    defaultBaseUrl,
    paths: {
      chat: '/chat/completions',
      ...(embeddings ? { embeddings: '/embeddings' } : {}),
      ...(responses ? { responses: '/responses' } : {}),
    },
    authHeaders: bearer,
    staticHeaders: {},
  };
}

/** Anthropic Messages API: `x-api-key` plus the required `anthropic-version`. */
const anthropic: ProviderDefinition = {
  name: 'anthropic',
  shape: 'anthropic',
  defaultBaseUrl: 'https://api.anthropic.com',
  paths: { messages: '/v1/messages' },
  authHeaders: (apiKey) => ({ 'x-api-key': apiKey }),
  staticHeaders: { 'anthropic-version': '2023-06-01' },
};

/**
 * Gemini (Generative Language API): `x-goog-api-key`; chat completions are translated to
 * generate-content (the path depends on model and streaming, so it comes from the translation).
 */
const gemini: ProviderDefinition = {
  name: 'gemini',
  shape: 'gemini',
  defaultBaseUrl: 'https://generativelanguage.googleapis.com',
  paths: {},
  authHeaders: (apiKey) => ({ 'x-goog-api-key': apiKey }),
  staticHeaders: {},
};

const definitions: ProviderDefinition[] = [
  openAiCompatible('openai', 'https://api.openai.com/v1', true, true),
  anthropic,
  gemini,
  openAiCompatible('groq', 'https://api.groq.com/openai/v1', false),
  openAiCompatible('mistral', 'https://api.mistral.ai/v1'),
  openAiCompatible('deepseek', 'https://api.deepseek.com/v1', false),
  openAiCompatible('together', 'https://api.together.xyz/v1'),
  openAiCompatible('fireworks', 'https://api.fireworks.ai/inference/v1'),
  openAiCompatible('openrouter', 'https://openrouter.ai/api/v1', false),
  openAiCompatible('xai', 'https://api.x.ai/v1', false),
  openAiCompatible('perplexity', 'https://api.perplexity.ai', false),
  openAiCompatible('cerebras', 'https://api.cerebras.ai/v1', false),
  openAiCompatible('deepinfra', 'https://api.deepinfra.com/v1/openai'),
  bedrock,
  bedrockMantle,
  vertex,
];

export const PROVIDERS: ReadonlyMap<string, ProviderDefinition> = new Map(
  definitions.map((definition) => [definition.name, definition]),
);

export const PROVIDER_NAMES: readonly string[] = [...PROVIDERS.keys()];
