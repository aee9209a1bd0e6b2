import type { Operation } from '../providers/registry.ts';

/** Who is calling the gateway, resolved from the credential. */
export interface Principal {
  kind: 'api-key' | 'ephemeral';
  tenantId: string;
  workspaceId: string;
  /** The workspace API key (for ephemeral tokens: the parent key). */
  keyId: string;
  /** Workspace key grants (`chat:write`, `embed`). */
  grants: ReadonlySet<string>;
}

/** The grant each operation needs from a workspace key. */
export const GRANT_FOR_OPERATION: Readonly<Record<Operation, string>> = {
  chat: 'chat:write',
  messages: 'chat:write',
  embeddings: 'embed',
};
