/**
 * Properties of ephemeral-token verification (`tt_ev_<kid>.<claims>.<signature>`, HMAC-SHA256): a
 * token the deployment did not sign exactly as it is never gets past 401. Real tokens are minted
 * through the control plane and then altered every way an attacker could: a bit flipped in the
 * key id, claims or signature, cut short or lengthened, re-encoded (padding, standard base64,
 * JSON respelled), claims changed (expiry, scopes, budget, tenant), signed with another key or
 * another key id; and random strings shaped like tokens. Tokens signed with the real key but with
 * claims the gateway must refuse (expired, over 24 hours, issued in the future) are refused too.
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzParameters, fuzzTimeout } from './fuzz-budget.ts';
import { type FuzzGateway, startFuzzGateway } from './fuzz-gateway.ts';
import { sendAndCheck } from './gateway-checks.ts';

let fuzz: FuzzGateway;
let minted: string[];

beforeAll(async () => {
  fuzz = await startFuzzGateway();
  minted = [
    await fuzz.mintToken(['chat', 'embeddings', 'messages']),
    await fuzz.mintToken(['chat']),
    await fuzz.mintToken(['chat', 'model:openai/gpt-4o-mini'], 120),
  ];
});

afterAll(async () => {
  await fuzz?.close();
});

const PREFIX = 'tt_ev_';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

interface TokenParts {
  keyId: string;
  payload: string;
  signature: string;
}

function split(token: string): TokenParts {
  const [keyId, payload, signature] = token.slice(PREFIX.length).split('.');
  return { keyId: keyId!, payload: payload!, signature: signature! };
}

const join = ({ keyId, payload, signature }: TokenParts) => `${PREFIX}${keyId}.${payload}.${signature}`;

function sign(secret: string, keyId: string, payload: string): string {
  return createHmac('sha256', secret).update(`${PREFIX}${keyId}.${payload}`).digest('base64url');
}

type Claims = Record<string, unknown>;
const claimsOf = (parts: TokenParts) =>
  JSON.parse(Buffer.from(parts.payload, 'base64url').toString('utf8')) as Claims;
const encodeClaims = (claims: Claims) => Buffer.from(JSON.stringify(claims)).toString('base64url');

/** A request the token's scopes allow, so that only the token itself can make it fail. */
async function callWith(token: string) {
  return sendAndCheck(fuzz, {
    method: 'POST',
    path: '/v1/chat/completions',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'x-service-cache': 'off',
    },
    body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] }),
  });
}

async function expectRefused(token: string, how: string): Promise<void> {
  const answer = await callWith(token);
  if (answer.status !== 401) {
    throw new Error(
      `a ${how} token was answered ${answer.status}, not 401: ${token}\n${answer.text.slice(0, 300)}`,
    );
  }
}

/** One change to a real token's text, and what it was for the failure report. */
type Alteration = (token: string) => { token: string; how: string };

/** A character of `text` replaced by another of the base64url alphabet (a flipped bit, as text). */
function replaceCharacter(text: string, position: number, shift: number): string {
  const index = position % text.length;
  const current = BASE64URL.indexOf(text[index]!);
  const replacement = BASE64URL[(current + 1 + (shift % (BASE64URL.length - 1))) % BASE64URL.length]!;
  return text.slice(0, index) + replacement + text.slice(index + 1);
}

/** One bit of the decoded bytes flipped, re-encoded canonically. */
function flipBit(encoded: string, bit: number): string {
  const bytes = Buffer.from(encoded, 'base64url');
  const index = bit % (bytes.length * 8);
  bytes[index >> 3]! ^= 1 << (index & 7);
  return bytes.toString('base64url');
}

/**
 * The same bytes spelled differently: the last character of unpadded base64url carries 2 or 4
 * bits that decoders ignore; setting the lowest changes the text and not the bytes.
 */
function nonCanonical(encoded: string): string {
  if (encoded.length % 4 === 0) return `${encoded}=`;
  const last = BASE64URL.indexOf(encoded.at(-1)!);
  return encoded.slice(0, -1) + BASE64URL[last ^ 1];
}

const part = fc.constantFrom<keyof TokenParts>('keyId', 'payload', 'signature');

const alterations: fc.Arbitrary<Alteration> = fc.oneof(
  fc.tuple(part, fc.nat(), fc.nat()).map(
    ([name, position, shift]): Alteration =>
      (token) => {
        const parts = split(token);
        return {
          token: join({ ...parts, [name]: replaceCharacter(parts[name], position, shift) }),
          how: `${name} character changed`,
        };
      },
  ),
  fc.tuple(fc.constantFrom<keyof TokenParts>('payload', 'signature'), fc.nat()).map(
    ([name, bit]): Alteration =>
      (token) => {
        const parts = split(token);
        return { token: join({ ...parts, [name]: flipBit(parts[name], bit) }), how: `${name} bit flipped` };
      },
  ),
  fc.nat().map(
    (cut): Alteration =>
      (token) => ({ token: token.slice(0, cut % token.length), how: 'truncated' }),
  ),
  fc.string({ minLength: 1, maxLength: 8 }).map(
    (tail): Alteration =>
      (token) => ({ token: token + tail, how: 'lengthened' }),
  ),
  fc
    .constantFrom(
      'pad',
      'non-canonical-signature',
      'non-canonical-payload',
      'standard-base64',
      'respelled-json',
      'swapped-parts',
      'lowercased',
      'extra-dot',
      'dropped-part',
    )
    .map(
      (form): Alteration =>
        (token) => {
          const parts = split(token);
          switch (form) {
            case 'pad':
              return { token: join({ ...parts, signature: `${parts.signature}=` }), how: 'padded signature' };
            case 'non-canonical-signature':
              return {
                token: join({ ...parts, signature: nonCanonical(parts.signature) }),
                how: 'signature spelled non-canonically',
              };
            case 'non-canonical-payload':
              return {
                token: join({ ...parts, payload: nonCanonical(parts.payload) }),
                how: 'payload spelled non-canonically',
              };
            case 'standard-base64':
              return {
                token: join({
                  ...parts,
                  payload: Buffer.from(parts.payload, 'base64url').toString('base64'),
                }),
                how: 'payload in standard base64',
              };
            case 'respelled-json': {
              const spaced = Buffer.from(JSON.stringify(claimsOf(parts), null, 1)).toString('base64url');
              return { token: join({ ...parts, payload: spaced }), how: 'same claims spelled differently' };
            }
            case 'swapped-parts':
              return {
                token: join({ ...parts, payload: parts.signature, signature: parts.payload }),
                how: 'parts swapped',
              };
            case 'lowercased':
              return { token: token.toLowerCase(), how: 'lowercased' };
            case 'extra-dot':
              return {
                token: `${PREFIX}${parts.keyId}.${parts.payload}..${parts.signature}`,
                how: 'extra dot',
              };
            default:
              return { token: `${PREFIX}${parts.keyId}.${parts.payload}`, how: 'signature dropped' };
          }
        },
    ),
  // Claims changed, the signature kept.
  fc
    .tuple(
      fc.constantFrom('exp', 'iat', 'scopes', 'budget', 'tenant', 'workspace', 'pk', 'jti', 'v', 'limits'),
      fc.jsonValue({ maxDepth: 2 }),
    )
    .map(
      ([claim, value]): Alteration =>
        (token) => {
          const parts = split(token);
          const claims = claimsOf(parts);
          const changed: Claims =
            claim === 'exp' && typeof claims.exp === 'number'
              ? { ...claims, exp: claims.exp + 86_400_000 }
              : { ...claims, [claim]: value };
          if (JSON.stringify(changed) === JSON.stringify(claims)) changed.extra = 1;
          return {
            token: join({ ...parts, payload: encodeClaims(changed) }),
            how: `claim '${claim}' changed`,
          };
        },
    ),
  // Signed, correctly, with a key the deployment does not hold, under its own key id or another.
  fc
    .tuple(
      fc.string({ minLength: 1, maxLength: 64 }),
      fc.option(fc.stringMatching(/^[A-Za-z0-9_-]{1,32}$/), { nil: undefined }),
    )
    .map(
      ([secret, keyId]): Alteration =>
        (token) => {
          const parts = split(token);
          const id = keyId ?? parts.keyId;
          return {
            token: join({ keyId: id, payload: parts.payload, signature: sign(secret, id, parts.payload) }),
            how: 'signed with another key',
          };
        },
    ),
);

/** Claims the gateway must refuse even under a valid signature. */
const refusedClaims: fc.Arbitrary<{ change: (claims: Claims, now: number) => Claims; how: string }> =
  fc.oneof(
    fc.integer({ min: 1, max: 10 ** 9 }).map((ago) => ({
      change: (claims: Claims, now: number) => ({ ...claims, exp: now - ago }),
      how: 'expired',
    })),
    fc.integer({ min: 1, max: 10 ** 9 }).map((over) => ({
      change: (claims: Claims, now: number) => ({
        ...claims,
        iat: now - 1000,
        exp: now - 1000 + 86_400_000 + over,
      }),
      how: 'a lifetime over 24 hours',
    })),
    fc.integer({ min: 1, max: 10 ** 9 }).map((over) => ({
      change: (claims: Claims, now: number) => ({
        ...claims,
        iat: now - 86_400_000 - over,
        exp: now + 60_000,
      }),
      how: 'older than 24 hours',
    })),
    fc.integer({ min: 120_000, max: 10 ** 9 }).map((ahead) => ({
      change: (claims: Claims, now: number) => ({ ...claims, iat: now + ahead, exp: now + ahead + 60_000 }),
      how: 'issued in the future',
    })),
    fc.constantFrom('v', 'jti', 'pk', 'tenant', 'workspace', 'scopes', 'iat', 'exp').chain((claim) =>
      fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined)).map((value) => ({
        change: (claims: Claims) => ({ ...claims, [claim]: value }),
        how: `claim '${claim}' malformed`,
      })),
    ),
  );

describe('ephemeral token verification under attack', () => {
  it('accepts the tokens as minted (so that every refusal below is the alteration)', async () => {
    for (const token of minted) expect((await callWith(token)).status).toBe(200);
  });

  it('refuses every alteration of a real token with 401', { timeout: fuzzTimeout(200, 60) }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(0, 1, 2), alterations, async (which, alter) => {
        const original = minted[which]!;
        const { token, how } = alter(original);
        // The transport trims header values, and so does the gateway: an alteration that is only
        // whitespace at the ends is no alteration.
        if (token.trim() === original) return;
        await expectRefused(token, how);
      }),
      fuzzParameters(200),
    );
  });

  it('refuses claims out of bounds with 401 even when the real key signed them', {
    timeout: fuzzTimeout(100, 60),
  }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(0, 1, 2), refusedClaims, async (which, { change, how }) => {
        const parts = split(minted[which]!);
        const claims = change(claimsOf(parts), Date.now());
        // A change that happens to leave valid claims (a malformed value that is still valid) proves nothing.
        const malformed = how.endsWith('malformed');
        if (malformed && isStillValid(claims)) return;
        const payload = encodeClaims(claims);
        await expectRefused(
          join({ keyId: parts.keyId, payload, signature: sign(fuzz.signingKey, parts.keyId, payload) }),
          how,
        );
      }),
      fuzzParameters(100),
    );
  });

  it('refuses random strings shaped like tokens with 401', { timeout: fuzzTimeout(150, 60) }, async () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9_-]{0,60}$/);
    const shaped = fc.oneof(
      fc
        .tuple(segment, segment, segment)
        .map(([keyId, payload, signature]) => `${PREFIX}${keyId}.${payload}.${signature}`),
      fc
        .tuple(
          fc.constantFrom('k1', 'k2'),
          fc.jsonValue({ maxDepth: 2 }),
          fc.uint8Array({ minLength: 32, maxLength: 32 }),
        )
        .map(
          ([keyId, claims, signature]) =>
            `${PREFIX}${keyId}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${Buffer.from(signature).toString('base64url')}`,
        ),
      fc.string({ maxLength: 80 }).map((rest) => PREFIX + rest.replace(/[\r\n\0]/g, '')),
      fc.nat({ max: 5000 }).map((length) => `${PREFIX}k1.${'A'.repeat(length)}.${'B'.repeat(43)}`),
    );
    await fc.assert(
      fc.asyncProperty(shaped, async (token) => {
        await expectRefused(token, 'random');
      }),
      fuzzParameters(150),
    );
  });
});

/** Whether claims still pass the gateway's own checks (a fuzzed value can happen to be valid). */
function isStillValid(claims: Claims): boolean {
  const identifier = (value: unknown) => typeof value === 'string' && /^[A-Za-z0-9_.:/-]{1,256}$/.test(value);
  const scopes = claims.scopes;
  return (
    claims.v === 1 &&
    ['jti', 'pk', 'tenant', 'workspace'].every((field) => identifier(claims[field])) &&
    Array.isArray(scopes) &&
    scopes.length > 0 &&
    typeof claims.iat === 'number' &&
    typeof claims.exp === 'number'
  );
}
