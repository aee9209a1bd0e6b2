/**
 * The SDL of provider credentials (Connections, bring your own key): the ProviderCredentialKind
 * enum, the credential, availability and probe result types, and their queries and mutations.
 * Resolvers live in credentials.ts.
 */
export const credentialTypeDefs = /* GraphQL */ `
  "A Connection's provider. Given as a string (providerName), bedrock-mantle and openai-compatible are accepted too."
  enum ProviderCredentialKind {
    openai
    anthropic
    gemini
    bedrock
    bedrockMantle
    vertex
    openaiCompatible
  }

  "A tenant's own provider credential (a Connection), routed as @<slug>/<model>. Never carries a secret."
  type ProviderCredential {
    "The X-Service-Credential-Id of its responses: <tenant>/<slug>."
    id: String!
    slug: String!
    "Same as slug (the deprecated name of the routing handle)."
    label: String!
    kind: ProviderCredentialKind!
    "The kind as the Connection resource spells it (bedrock-mantle, openai-compatible)."
    provider: String!
    "The only secret-derived value ever shown (sk-…abcd); empty for short or absent keys."
    keyHint: String!
    "Absent: usable by every workspace of the tenant."
    workspaceId: String
    baseUrl: String
    awsRegion: String
    vertexProject: String
    vertexRegion: String
    defaultModel: String
    "Spend cap per UTC day in USD micros; absent: no cap."
    dailyCapMicros: Float
    "Spend counted against the cap today (UTC); absent when there is no cap."
    spentTodayMicros: Float
    "ISO 8601; absent when the resource does not say."
    createdAt: String
    "Whether the gateway serves it: its record is in the gateway's view."
    ready: Boolean!
    "Ready, or why not: SecretNotFound, KeyMissing, SlugConflict, UnknownWorkspace, Pending, ..."
    status: String!
  }

  type ProviderAvailability {
    "A model-name prefix of the platform registry (openai, groq, ...) or a Connection kind (bedrock-mantle, ...)."
    provider: String!
    "The Connection kind of that name, when Connections can be of it."
    kind: ProviderCredentialKind
    "The platform holds a key: <provider>/<model> works and is charged to the balance."
    platform: Boolean!
    "Slugs of the workspace's ready Connections of this kind: @<slug>/<model>."
    connectionSlugs: [String!]!
    "platform, or at least one Connection."
    available: Boolean!
  }

  type ProviderCredentialTest {
    "The upstream accepted the credential."
    ok: Boolean!
    "The upstream's HTTP status; absent when it did not answer or was not asked."
    status: Int
    message: String!
    latencyMs: Int!
  }

  type Query {
    "The tenant's provider credentials; with workspaceId, those that workspace can use."
    providerCredentials(workspaceId: String): [ProviderCredential!]!
    "Which providers the workspace can use: on the platform's key or with its own Connections."
    providerAvailability(workspaceId: String!): [ProviderAvailability!]!
  }

  type Mutation {
    """
    Creates or updates the Connection of this slug (slug wins over label; default: the provider's
    name) and its Secret; returns once the gateway serves it. On update, an argument left out keeps
    its value and an explicit null clears it; changing the provider drops the old secret values.
    """
    upsertProviderCredential(
      provider: ProviderCredentialKind
      "Alternative to provider, as a string: bedrock-mantle, openai-compatible, bedrockMantle, ..."
      providerName: String
      slug: String
      label: String
      apiKey: String
      awsAccessKeyId: String
      awsSecretAccessKey: String
      "Temporary AWS credentials only (they expire with the session)."
      awsSessionToken: String
      awsRegion: String
      gcpServiceAccountJson: String
      vertexProject: String
      vertexRegion: String
      baseUrl: String
      workspaceId: String
      defaultModel: String
      dailyCapMicros: Float
    ): ProviderCredential!
    "Probes the upstream with the credential (a models list, a signed identity call, a token exchange)."
    testProviderCredential(slug: String!): ProviderCredentialTest!
    "Deletes the Connection and its Secret; returns once the gateway no longer serves it."
    revokeProviderCredential(slug: String!): Boolean!
  }
`;
