/**
 * What `AdminClient` (`/graphql`) and `PlatformAdminClient` (`/admin/graphql`) share: a transport
 * with their token, the base URL, `execute` for any typed document on their endpoint, and `field`
 * for a document's root field.
 */
import { type CallOptions, type ConnectionOptions, Transport } from './transport.ts';
import type { TypedDocument } from './typed-document.ts';

export abstract class GraphQLEndpointClient {
  protected readonly transport: Transport;
  readonly #path: string;

  protected constructor(options: ConnectionOptions, token: string | undefined, path: string) {
    this.transport = new Transport(options, token);
    this.#path = path;
  }

  /** The control plane's base URL, as given (without a trailing slash). */
  get url(): string {
    return this.transport.baseUrl;
  }

  /** Runs any typed document on this client's endpoint and resolves with its whole `data`. */
  execute<Result, Variables>(
    document: TypedDocument<Result, Variables>,
    variables: Variables,
    options?: CallOptions,
  ): Promise<Result> {
    return this.transport.graphql(this.#path, document, variables, options);
  }

  /** The document's root field of the answer. */
  protected async field<Result, Variables>(
    document: TypedDocument<Result, Variables>,
    variables: Variables,
    options: CallOptions | undefined,
  ): Promise<Result[keyof Result]> {
    const data = await this.execute(document, variables, options);
    return data[document.rootField as keyof Result];
  }
}
