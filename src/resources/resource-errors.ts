/**
 * The errors both resources clients (local-resources.ts, kubernetes-resources.ts) throw, so that
 * callers handle a refusal the same way whichever client they were given.
 */

/** An apply refused because the object breaks a schema rule; `messages` names each rule. */
export class ResourceValidationError extends Error {
  readonly resource: string;
  readonly messages: readonly string[];

  constructor(resource: string, messages: readonly string[]) {
    super(`${resource} is invalid: ${messages.join('; ')}`);
    this.name = 'ResourceValidationError';
    this.resource = resource;
    this.messages = messages;
  }
}

export class ResourceNotFoundError extends Error {
  constructor(resource: string) {
    super(`${resource} not found`);
    this.name = 'ResourceNotFoundError';
  }
}

/** A create of a name that is taken, or an update whose resourceVersion moved meanwhile. */
export class ResourceConflictError extends Error {
  constructor(resource: string, reason: 'exists' | 'changed') {
    super(
      reason === 'exists'
        ? `${resource} already exists`
        : `${resource} was changed by someone else meanwhile; read it again`,
    );
    this.name = 'ResourceConflictError';
  }
}
