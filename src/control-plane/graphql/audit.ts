/**
 * The audit log: every mutation records who, what, when and the outcome (never a secret), and
 * `auditLog` reads it back, newest first.
 */
import { GraphQLError } from 'graphql';
import type { AuditEntry } from '../../stores/types.ts';
import { recordAudit } from '../audit-record.ts';
import { type ResolverContext, validationError } from './context.ts';

export const auditTypeDefs = /* GraphQL */ `
  type AuditEntry {
    id: String!
    at: String!
    actor: String!
    operation: String!
    target: String!
    outcome: String!
    message: String
  }

  type Query {
    "The tenant's control-plane mutations, newest first."
    auditLog(limit: Int = 50, before: String): [AuditEntry!]!
  }
`;

type Resolver<Args> = (parent: unknown, args: Args, context: ResolverContext) => Promise<unknown>;

/** Wraps a mutation resolver so its outcome is audit-logged; `target` names what it acted on. */
export function audited<Args>(
  operation: string,
  target: (args: Args) => string,
  resolver: Resolver<Args>,
): Resolver<Args> {
  return async (parent, args, context) => {
    const write = (outcome: AuditEntry['outcome'], message?: string) =>
      recordAudit(context.services, context.tenantId, {
        actor: context.pat.id,
        operation,
        target: target(args),
        outcome,
        ...(message === undefined ? {} : { message }),
      });
    try {
      const result = await resolver(parent, args, context);
      await write('success');
      return result;
    } catch (error) {
      await write('failure', error instanceof GraphQLError ? error.message : 'internal error');
      throw error;
    }
  };
}

export const auditResolvers = {
  Query: {
    auditLog: async (
      _parent: unknown,
      args: { limit: number; before?: string },
      context: ResolverContext,
    ) => {
      if (!Number.isInteger(args.limit) || args.limit < 1 || args.limit > 500) {
        throw validationError('limit must be between 1 and 500');
      }
      return context.services.runtime.listAudit(context.tenantId, args.limit, args.before ?? undefined);
    },
  },
};
