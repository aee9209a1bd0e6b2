/**
 * A fake Gemini (Generative Language API) upstream: generateContent JSON and
 * streamGenerateContent?alt=sse (CRLF-separated `data:` events), embedContent and
 * batchEmbedContents (at most 100 requests per call), authenticated by x-goog-api-key.
 */
import { FakeServer, sendJson } from './fake-server.ts';

export const FAKE_GEMINI_REPLY = 'Hello from the fake Gemini upstream.';

function candidateResponse(text: string, finishReason?: string) {
  return {
    candidates: [
      { content: { role: 'model', parts: [{ text }] }, index: 0, ...(finishReason ? { finishReason } : {}) },
    ],
    modelVersion: 'gemini-2.5-flash',
    responseId: 'resp_fake_gemini',
  };
}

const USAGE = { promptTokenCount: 9, candidatesTokenCount: 7, totalTokenCount: 16 };

export const FAKE_GEMINI_EMBEDDING_MODEL = 'gemini-embedding-001';

/**
 * The fake's embedding of a text: its length, the number it ends with (-1 if none) and a constant,
 * so that tests can tell which input a vector belongs to.
 */
export function fakeGeminiEmbedding(text: string): number[] {
  return [text.length, Number(/\d+$/.exec(text)?.[0] ?? -1), 0.5];
}

type EmbedRequest = { model?: string; content?: { parts?: { text?: string }[] } };

const embeddingOf = (request: EmbedRequest) => ({
  values: fakeGeminiEmbedding((request.content?.parts ?? []).map((part) => part.text ?? '').join('')),
});

export async function startFakeGemini(apiKey: string): Promise<FakeServer> {
  const server = new FakeServer();
  // One handler for every model path: /v1beta/models/<model>:<method>.
  const handle = async (
    request: Parameters<Parameters<FakeServer['overrideNext']>[0]>[0],
    response: Parameters<Parameters<FakeServer['overrideNext']>[0]>[1],
  ) => {
    if (request.headers['x-goog-api-key'] !== apiKey) {
      sendJson(response, 400, {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'API_KEY_INVALID',
              domain: 'googleapis.com',
            },
          ],
        },
      });
      return;
    }
    if (request.path.endsWith(':embedContent')) {
      sendJson(response, 200, { embedding: embeddingOf(request.body as EmbedRequest) });
      return;
    }
    if (request.path.endsWith(':batchEmbedContents')) {
      const requests = (request.body as { requests?: EmbedRequest[] }).requests ?? [];
      if (
        requests.length > 100 ||
        requests.some((item) => item.model !== `models/${FAKE_GEMINI_EMBEDDING_MODEL}`)
      ) {
        sendJson(response, 400, {
          error: {
            code: 400,
            message: '* BatchEmbedContentsRequest.requests: at most 100 requests, each naming the model',
            status: 'INVALID_ARGUMENT',
          },
        });
        return;
      }
      sendJson(response, 200, { embeddings: requests.map(embeddingOf) });
      return;
    }
    if (request.path.includes(':streamGenerateContent')) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunks = [
        candidateResponse('Hello'),
        candidateResponse(' from'),
        { ...candidateResponse(' Gemini.', 'STOP'), usageMetadata: USAGE },
      ];
      for (const chunk of chunks) {
        response.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
        await new Promise((resolve) => setImmediate(resolve));
      }
      response.end();
      return;
    }
    sendJson(response, 200, { ...candidateResponse(FAKE_GEMINI_REPLY, 'STOP'), usageMetadata: USAGE });
  };
  for (const model of ['gemini-2.5-flash', 'gemini-2.5-pro']) {
    server.route('POST', `/v1beta/models/${model}:generateContent`, handle);
    server.route('POST', `/v1beta/models/${model}:streamGenerateContent`, handle);
  }
  for (const method of ['embedContent', 'batchEmbedContents'])
    server.route('POST', `/v1beta/models/${FAKE_GEMINI_EMBEDDING_MODEL}:${method}`, handle);
  return server.start();
}
