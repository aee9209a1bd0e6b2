/**
 * The default Connection of a client: a tenant's own provider credential, addressed by its slug as
 * `@<slug>/<model>`. With one pinned, unprefixed model names are sent as `@<slug>/<model>`.
 */
import { warnOnce } from './deprecation.ts';
import { GatewayValidationError } from './errors.ts';

/** The options that name a default Connection. */
export interface ConnectionOptions {
  /**
   * The slug of the Connection that serves unprefixed model names (`gpt-4o` is sent as
   * `@<slug>/gpt-4o`). A leading `@` is accepted and stripped: `'@mine'` and `'mine'` are the same.
   */
  connection?: string | undefined;
  /**
   * The older name of {@link ConnectionOptions.connection}, honoured; when both are set, `connection` wins.
   * @deprecated Since 0.16.0: use `connection`.
   */
  workspaceCredential?: string | undefined;
}

/**
 * A Connection slug: lowercase letters, digits, `-` (and `.`, which Kubernetes object names allow),
 * starting with a letter or digit.
 */
const SLUG = /^[a-z0-9][a-z0-9.-]{0,252}$/;

function normaliseSlug(value: unknown, option: string): string {
  if (typeof value !== 'string') throw new GatewayValidationError(option, 'must be a string');
  const slug = value.trim().replace(/^@/, '');
  if (!SLUG.test(slug)) {
    throw new GatewayValidationError(
      option,
      `${JSON.stringify(value)} is not a Connection slug (lowercase letters, digits and '-', optionally with a leading '@')`,
    );
  }
  return slug;
}

/**
 * The slug of the default Connection, or undefined when none is pinned. `workspaceCredential` is
 * honoured with a one-time deprecation warning; `connection` wins when both are set.
 *
 * @throws GatewayValidationError when the value is not a slug.
 */
export function resolveConnection(options: ConnectionOptions): string | undefined {
  const { connection, workspaceCredential } = options;
  if (workspaceCredential !== undefined) {
    warnOnce(
      'workspaceCredential',
      connection === undefined
        ? '`workspaceCredential` is deprecated since 0.16.0; use `connection` (same value).'
        : '`workspaceCredential` is deprecated since 0.16.0 and is ignored here: `connection` is also set, and wins.',
    );
  }
  if (connection !== undefined) return normaliseSlug(connection, 'connection');
  if (workspaceCredential !== undefined) return normaliseSlug(workspaceCredential, 'workspaceCredential');
  return undefined;
}

/**
 * The model name to send when `slug` is pinned: an unprefixed name becomes `@<slug>/<model>`; a
 * name with a provider prefix (`openai/gpt-4o`, anything with a `/`) or a Connection of its own
 * (`@other/...`) is left as it is; a missing or empty model becomes `@<slug>`, which the gateway
 * serves with the Connection's `defaultModel`.
 */
export function pinModel(model: unknown, slug: string): unknown {
  if (model === undefined || model === null || model === '') return `@${slug}`;
  if (typeof model !== 'string' || model.startsWith('@') || model.includes('/')) return model;
  return `@${slug}/${model}`;
}
