/**
 * AWS Signature Version 4 for upstream requests, with @smithy/signature-v4 (reference/providers.md
 * section 4, "Auth"). The request is signed exactly as it is sent: the path as it goes on the wire
 * (model ids already percent-encoded, `:` as `%3A`), which the signer URI-encodes once more for
 * the canonical request (`%253A`), as every AWS service but S3 expects.
 */
import type { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredential, OutgoingRequest, RequestSigner } from './types.ts';

/** @smithy's signer (about 2.6 MB of heap), loaded by the first request signed, not at start. */
async function loadSigner(options: SigV4Options): Promise<SignatureV4> {
  const [{ Hash }, { SignatureV4 }] = await Promise.all([
    import('@smithy/hash-node'),
    import('@smithy/signature-v4'),
  ]);
  // SHA-256 from node:crypto, in the constructor shape the signer takes.
  const sha256 = Hash.bind(null, 'sha256') as unknown as ConstructorParameters<
    typeof SignatureV4
  >[0]['sha256'];
  return new SignatureV4({
    service: options.service,
    region: options.region,
    credentials: {
      accessKeyId: options.credential.accessKeyId,
      secretAccessKey: options.credential.secretAccessKey,
      ...(options.credential.sessionToken === undefined
        ? {}
        : { sessionToken: options.credential.sessionToken }),
    },
    sha256,
    uriEscapePath: true,
  });
}

export interface SigV4Options {
  /** Signing service name: `bedrock` (runtime and control plane), `bedrock-mantle`, `sts`. */
  service: string;
  region: string;
  credential: AwsCredential;
}

/** Query parameters as the signer wants them (decoded; it encodes them canonically). */
function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const existing = query[name];
    if (existing === undefined) query[name] = value;
    else query[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return query;
}

/**
 * A signer for one credential: returns the headers to send (the given ones, lower-cased, plus
 * `host`, `x-amz-date`, `x-amz-content-sha256`, `x-amz-security-token` and `authorization`).
 */
export function createSigV4Signer(options: SigV4Options): RequestSigner {
  let signer: Promise<SignatureV4> | undefined;
  return async (request: OutgoingRequest) => {
    signer ??= loadSigner(options);
    return signRequest(await signer, request);
  };
}

async function signRequest(signer: SignatureV4, request: OutgoingRequest): Promise<Record<string, string>> {
  const url = new URL(request.url);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
  // A Bearer key and SigV4 never travel together.
  delete headers.authorization;
  headers.host = url.host;
  const signed = await signer.sign({
    method: request.method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port === '' ? {} : { port: Number(url.port) }),
    path: url.pathname,
    query: queryOf(url),
    headers,
    body: request.body,
  });
  return signed.headers as Record<string, string>;
}
