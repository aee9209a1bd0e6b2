import type { Operation } from '../shapes/api.ts';
import type { TokenRateLimits } from './ephemeral-token.ts';

/** The ephemeral-token part of a principal. */
export interface TokenGrant {
  jti: string;
  /** Route scopes (`chat`, `embeddings`, `messages`, `responses`). */
  routes: ReadonlySet<string>;
  /** Models named by `model:<id>` scopes; empty: any model. */
  models: ReadonlySet<string>;
  budgetMicros?: number;
  limits?: TokenRateLimits;
  expiresAtMs: number;
}

/** Who is calling the gateway, resolved from the credential. */
export interface Principal {
  kind: 'api-key' | 'ephemeral';
  tenantId: string;
  workspaceId: string;
  /** The workspace API key (for ephemeral tokens: the parent key). */
  keyId: string;
  /** Workspace key grants (`chat:write`, `embed`); for a token, its parent key's. */
  grants: ReadonlySet<string>;
  /** Present for ephemeral tokens. */
  token?: TokenGrant;
}

/** The grant each operation needs from a workspace key. */
export const GRANT_FOR_OPERATION: Readonly<Record<Operation, string>> = {
  chat: 'chat:write',
  messages: 'chat:write',
  responses: 'chat:write',
  embeddings: 'embed',
};

/** The token scope each operation needs. */
export const SCOPE_FOR_OPERATION: Readonly<Record<Operation, string>> = {
  chat: 'chat',
  messages: 'messages',
  // Its own scope: a token minted for `chat` does not open the Responses API (stored responses).
  responses: 'responses',
  embeddings: 'embeddings',
};
