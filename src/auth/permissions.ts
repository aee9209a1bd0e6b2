/** What a personal access token may do on the control plane (`/graphql`). */
export const PAT_PERMISSIONS = [
  'tokens:mint',
  'keys:manage',
  'cache:manage',
  'credentials:manage',
  'workspaces:manage',
  'pats:manage',
  'billing:read',
  'provisioning:manage',
] as const;
export type PatPermission = (typeof PAT_PERMISSIONS)[number];
