/**
 * Form-encoded POSTs for credential exchanges (Google's OAuth2 token endpoint). Such calls are
 * rare (one per service account and hour), so they use their own small agent with short timeouts
 * and close their connection afterwards: a slow token endpoint never holds inference connections,
 * and nothing lingers at shutdown.
 */
import { Agent } from 'undici';
import { classifyTransportError } from './upstream-client.ts';

const agent = new Agent({
  connect: { timeout: 10_000 },
  headersTimeout: 30_000,
  bodyTimeout: 30_000,
  connections: 8,
  // HTTP/1.1 only: `reset` (close after the answer) means nothing to an HTTP/2 session, which
  // undici would otherwise offer and keep open.
  allowH2: false,
});

export interface FormAnswer {
  statusCode: number;
  text: string;
}

/** POSTs `form` (already encoded) to `url`; transport failures become the gateway's typed errors. */
export async function postForm(provider: string, url: string, form: string): Promise<FormAnswer> {
  try {
    const target = new URL(url);
    const response = await agent.request({
      origin: target.origin,
      path: target.pathname + target.search,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form,
      reset: true,
    });
    return { statusCode: response.statusCode, text: await response.body.text() };
  } catch (error) {
    throw classifyTransportError(provider, error);
  }
}
