/**
 * Amazon Bedrock as providers (reference/providers.md section 4): where requests go, per region,
 * and how they are authenticated. A Bedrock API key is sent as a Bearer token (no signing);
 * otherwise AWS access keys sign each request with SigV4.
 *
 * - `bedrock`: the runtime's Converse / ConverseStream APIs (shape `bedrock`; chat completions are
 *   translated, see translate/openai-to-bedrock), signing service `bedrock`.
 * - `bedrock-mantle`: Bedrock's OpenAI-compatible endpoint (shape `openai`, passthrough), signing
 *   service `bedrock-mantle`. No embeddings there.
 */
import { createSigV4Signer } from './aws-sigv4.ts';
import type { ProviderCredential, ProviderDefinition, RequestSigner } from './types.ts';

/** Where a credential names no region (AWS's own default). */
export const DEFAULT_AWS_REGION = 'us-east-1';

const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

/** SigV4 with the credential's AWS keys, unless an API key (Bearer) authenticates the calls. */
function sigV4For(service: string) {
  return (credential: ProviderCredential): RequestSigner | undefined => {
    if (credential.apiKey !== undefined || credential.aws === undefined) return undefined;
    return createSigV4Signer({
      service,
      region: credential.region ?? DEFAULT_AWS_REGION,
      credential: credential.aws,
    });
  };
}

export const bedrock: ProviderDefinition = {
  name: 'bedrock',
  shape: 'bedrock',
  defaultBaseUrl: 'https://bedrock-runtime.{region}.amazonaws.com',
  // Converse paths depend on the model and on streaming: they come from the translation.
  paths: {},
  authHeaders: bearer,
  // Set here (not left to the HTTP client) so that it is signed with the rest.
  staticHeaders: { 'content-type': 'application/json' },
  defaultRegion: DEFAULT_AWS_REGION,
  createSigner: sigV4For('bedrock'),
};

export const bedrockMantle: ProviderDefinition = {
  name: 'bedrock-mantle',
  shape: 'openai',
  defaultBaseUrl: 'https://bedrock-mantle.{region}.api.aws/v1',
  paths: { chat: '/chat/completions' },
  authHeaders: bearer,
  staticHeaders: { 'content-type': 'application/json' },
  defaultRegion: DEFAULT_AWS_REGION,
  createSigner: sigV4For('bedrock-mantle'),
};
