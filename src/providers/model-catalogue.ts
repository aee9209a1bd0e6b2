/**
 * The models `GET /v1/models` lists for each provider: the current, generally available models of
 * its public model list (not every dated snapshot, which the gateway serves too). Data, keyed by
 * registry name and Connection kind; a provider with no entry lists nothing of its own (its models
 * are still served by name). What a model is used for decides which callers see it: `chat` on the
 * chat and messages routes, `embeddings` on the embeddings route.
 */
export type ModelUse = 'chat' | 'embeddings';

export interface CatalogueModel {
  id: string;
  use: ModelUse;
}

const chat = (...ids: string[]): CatalogueModel[] => ids.map((id) => ({ id, use: 'chat' }));
const embeddings = (...ids: string[]): CatalogueModel[] => ids.map((id) => ({ id, use: 'embeddings' }));

const ANTHROPIC = chat(
  'claude-opus-4-1',
  'claude-opus-4',
  'claude-sonnet-4-5',
  'claude-sonnet-4',
  'claude-3-7-sonnet-latest',
  'claude-haiku-4-5',
  'claude-3-5-haiku-latest',
);

const GEMINI = [
  ...chat('gemini-2.5-pro', 'gemini-2.5-flash', 'gemini-2.5-flash-lite', 'gemini-2.0-flash'),
  ...embeddings('gemini-embedding-001', 'text-embedding-004'),
];

/** Provider (registry name or Connection kind) -> its listed models. */
export const MODEL_CATALOGUE: ReadonlyMap<string, readonly CatalogueModel[]> = new Map([
  [
    'openai',
    [
      ...chat(
        'gpt-5',
        'gpt-5-mini',
        'gpt-5-nano',
        'gpt-4.1',
        'gpt-4.1-mini',
        'gpt-4.1-nano',
        'gpt-4o',
        'gpt-4o-mini',
        'o3',
        'o4-mini',
      ),
      ...embeddings('text-embedding-3-small', 'text-embedding-3-large'),
    ],
  ],
  ['anthropic', ANTHROPIC],
  ['gemini', GEMINI],
  ['groq', chat('llama-3.3-70b-versatile', 'llama-3.1-8b-instant', 'openai/gpt-oss-120b')],
  [
    'mistral',
    [
      ...chat('mistral-large-latest', 'mistral-medium-latest', 'mistral-small-latest', 'codestral-latest'),
      ...embeddings('mistral-embed'),
    ],
  ],
  ['deepseek', chat('deepseek-chat', 'deepseek-reasoner')],
  [
    'together',
    chat(
      'meta-llama/Llama-3.3-70B-Instruct-Turbo',
      'Qwen/Qwen2.5-72B-Instruct-Turbo',
      'deepseek-ai/DeepSeek-V3',
    ),
  ],
  ['fireworks', chat('accounts/fireworks/models/llama-v3p3-70b-instruct')],
  ['openrouter', chat('openai/gpt-4o', 'anthropic/claude-sonnet-4', 'google/gemini-2.5-flash')],
  ['xai', chat('grok-4', 'grok-3-mini')],
  ['perplexity', chat('sonar', 'sonar-pro', 'sonar-reasoning')],
  ['cerebras', chat('llama-3.3-70b', 'llama3.1-8b')],
  ['deepinfra', chat('meta-llama/Meta-Llama-3.1-70B-Instruct')],
  [
    'bedrock',
    [
      ...chat(
        'anthropic.claude-sonnet-4-20250514-v1:0',
        'anthropic.claude-3-5-haiku-20241022-v1:0',
        'amazon.nova-pro-v1:0',
        'amazon.nova-lite-v1:0',
        'meta.llama3-1-70b-instruct-v1:0',
      ),
      ...embeddings('amazon.titan-embed-text-v2:0', 'cohere.embed-english-v3'),
    ],
  ],
  ['bedrock-mantle', chat('openai.gpt-oss-120b', 'openai.gpt-oss-20b')],
  [
    'vertex',
    [
      ...chat('gemini-2.5-pro', 'gemini-2.5-flash', 'claude-sonnet-4@20250514', 'claude-3-5-haiku@20241022'),
      ...embeddings('text-embedding-005', 'gemini-embedding-001'),
    ],
  ],
]);
