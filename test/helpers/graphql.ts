/** Minimal GraphQL client for tests: POSTs to the control plane with a bearer PAT. */
export interface GraphQLResponse<T = Record<string, unknown>> {
  status: number;
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

export async function graphql<T = Record<string, unknown>>(
  controlUrl: string,
  pat: string | undefined,
  query: string,
  variables: Record<string, unknown> = {},
  path = '/graphql',
): Promise<GraphQLResponse<T>> {
  const response = await fetch(`${controlUrl}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(pat === undefined ? {} : { authorization: `Bearer ${pat}` }),
    },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T | null; errors?: GraphQLResponse['errors'] };
  return { status: response.status, ...body };
}

export const MINT = `mutation Mint($input: MintEphemeralTokenInput!) {
  mintEphemeralToken(input: $input) { token jti expiresAt scopes }
}`;

export interface MintedToken {
  token: string;
  jti: string;
  expiresAt: string;
  scopes: string[];
}
