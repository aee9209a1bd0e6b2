/**
 * Spellings of a Connection's provider kind. The GraphQL enum `ProviderCredentialKind` spells them
 * `bedrockMantle` and `openaiCompatible` (enum values cannot hold a dash); its resolver values are
 * the CRD's spellings, so resolvers only ever see `bedrock-mantle` and `openai-compatible`. Where a
 * kind is given as a string (`providerName`), every spelling is accepted: the CRD's
 * (`bedrock-mantle`), the enum's (`bedrockMantle`), any case, with `-`, `_` or nothing between the
 * words.
 */
import { PROVIDER_KINDS, type ProviderKind } from '../../stores/records.ts';

/** GraphQL enum value -> the CRD's spelling (the enum's internal values). */
export const KIND_OF_ENUM_VALUE: Readonly<Record<string, ProviderKind>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'gemini',
  bedrock: 'bedrock',
  bedrockMantle: 'bedrock-mantle',
  vertex: 'vertex',
  openaiCompatible: 'openai-compatible',
};

const spellingKey = (text: string) =>
  text
    .trim()
    .toLowerCase()
    .replace(/[-_\s]/g, '');
const KIND_BY_SPELLING = new Map(PROVIDER_KINDS.map((kind) => [spellingKey(kind), kind]));

/** A provider kind from any accepted spelling (`bedrock-mantle`, `bedrockMantle`, `BEDROCK_MANTLE`). */
export function parseProviderKind(text: string): ProviderKind | undefined {
  return KIND_BY_SPELLING.get(spellingKey(text));
}

/** Whether a name is a kind exactly as the CRD spells it (registry names mostly are not). */
export function isProviderKind(name: string): name is ProviderKind {
  return (PROVIDER_KINDS as readonly string[]).includes(name);
}
