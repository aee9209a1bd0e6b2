/** What a personal access token may do on the control plane. */
export const PAT_PERMISSIONS = ['tokens:mint', 'keys:manage', 'cache:manage', 'credentials:manage'] as const;
export type PatPermission = (typeof PAT_PERMISSIONS)[number];
