/**
 * Image, audio and file URLs of a chat request -> Gemini parts (reference/providers.md §3, the
 * "user text / image data-URL / https URL" row, and §5 for Vertex).
 *
 * A data URL becomes inline bytes. A remote URL can only become a `fileData` reference that the
 * upstream fetches itself, and the Gemini API fetches only Files-API URIs and YouTube links;
 * Vertex also takes `gs://` and https URIs. The reference's alternative for the Gemini API,
 * downloading and inlining, is not done: this translator is pure, and a gateway that fetches
 * URLs its clients name is an SSRF risk. Other URLs are refused with a 400 naming the rule.
 */
import { InvalidRequestError } from '../../errors/gateway-error.ts';
import type { GeminiPart } from '../../shapes/gemini.ts';

const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  txt: 'text/plain',
  mp3: 'audio/mp3',
  wav: 'audio/wav',
  flac: 'audio/flac',
  ogg: 'audio/ogg',
  mp4: 'video/mp4',
  mov: 'video/mov',
  webm: 'video/webm',
};

const YOUTUBE_HOST = /^((www|m)\.)?youtube\.com$|^youtu\.be$/;
/** `https://generativelanguage.googleapis.com/v1beta/files/{id}`, the Files API's own URIs. */
const FILES_API_PATH = /^\/v1[a-z0-9]*\/files\/[^/]+$/;

function parseUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** What the Gemini API fetches itself: its Files-API URIs and YouTube links (https only). */
function isGeminiApiFileUri(url: URL): boolean {
  if (url.protocol !== 'https:') return false;
  if (YOUTUBE_HOST.test(url.hostname)) return true;
  return url.hostname === 'generativelanguage.googleapis.com' && FILES_API_PATH.test(url.pathname);
}

/** What Vertex fetches itself (besides the above): Cloud Storage and https URIs. */
const isVertexFileUri = (url: URL): boolean => url.protocol === 'gs:' || url.protocol === 'https:';

/**
 * By the path's extension; none for YouTube links and Files-API URIs (the upstream knows their
 * type); a URL without a known extension is assumed JPEG (image parts are the common case).
 */
function guessMimeType(url: URL): string | undefined {
  if (YOUTUBE_HOST.test(url.hostname) || url.hostname === 'generativelanguage.googleapis.com')
    return undefined;
  const dot = url.pathname.lastIndexOf('.');
  const extension = dot === -1 ? '' : url.pathname.slice(dot + 1).toLowerCase();
  return MIME_BY_EXTENSION[extension] ?? 'image/jpeg';
}

function convertDataUrl(url: string, where: string): GeminiPart {
  const comma = url.indexOf(',');
  if (comma === -1) throw new InvalidRequestError(`${where}: malformed data URL`);
  const header = url.slice('data:'.length, comma);
  const payload = url.slice(comma + 1);
  const isBase64 = header.endsWith(';base64');
  const mimeType = (isBase64 ? header.slice(0, -';base64'.length) : header).split(';')[0] || 'text/plain';
  const data = isBase64 ? payload : Buffer.from(decodeURIComponent(payload), 'utf8').toString('base64');
  return { inlineData: { mimeType, data } };
}

/**
 * A URL from an image, audio or file part -> an inline or file-reference part. `remoteFileUris`:
 * the upstream is Vertex. Throws InvalidRequestError for a URL the upstream cannot fetch.
 */
export function convertMediaUrl(url: string, where: string, remoteFileUris: boolean): GeminiPart {
  if (url.startsWith('data:')) return convertDataUrl(url, where);
  const parsed = parseUrl(url);
  if (parsed !== undefined && (isGeminiApiFileUri(parsed) || (remoteFileUris && isVertexFileUri(parsed)))) {
    const mimeType = guessMimeType(parsed);
    return { fileData: { ...(mimeType === undefined ? {} : { mimeType }), fileUri: url } };
  }
  throw new InvalidRequestError(
    remoteFileUris
      ? `${where}: vertex/ Gemini models take media as data: URLs, gs:// or https URIs`
      : `${where}: gemini/ models take images and files as data: URLs (data:image/png;base64,...), ` +
          'Gemini Files API URIs or YouTube links; the gateway does not fetch other URLs',
  );
}
