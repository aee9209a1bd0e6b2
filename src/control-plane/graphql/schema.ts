/**
 * The control plane's GraphQL schema: SDL and resolvers per domain, merged.
 */
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { accessResolvers, accessTypeDefs } from './access.ts';
import { auditResolvers, auditTypeDefs } from './audit.ts';
import { cacheResolvers, cacheTypeDefs } from './cache.ts';
import { credentialResolvers, credentialTypeDefs } from './credentials.ts';
import { keyResolvers, keyTypeDefs } from './keys.ts';
import { routeResolvers, routeTypeDefs } from './routes.ts';
import { tenancyResolvers, tenancyTypeDefs } from './tenancy.ts';
import { tokenResolvers, tokenTypeDefs } from './tokens.ts';
import { usageResolvers, usageTypeDefs } from './usage.ts';

/** Domain modules of `/graphql` (the admin API is a schema of its own: admin.ts). */
const MODULES = [
  { typeDefs: auditTypeDefs, resolvers: auditResolvers },
  { typeDefs: tenancyTypeDefs, resolvers: tenancyResolvers },
  { typeDefs: accessTypeDefs, resolvers: accessResolvers },
  { typeDefs: tokenTypeDefs, resolvers: tokenResolvers },
  { typeDefs: keyTypeDefs, resolvers: keyResolvers },
  { typeDefs: cacheTypeDefs, resolvers: cacheResolvers },
  { typeDefs: credentialTypeDefs, resolvers: credentialResolvers },
  { typeDefs: routeTypeDefs, resolvers: routeResolvers },
  { typeDefs: usageTypeDefs, resolvers: usageResolvers },
];

export function buildControlPlaneSchema(): GraphQLSchema {
  return makeExecutableSchema({
    typeDefs: MODULES.map((module) => module.typeDefs),
    resolvers: MODULES.map((module) => module.resolvers),
  });
}
