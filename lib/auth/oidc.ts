/**
 * OpenID Connect for shared mode's sign-in, the parts without I/O: the issuer's discovery
 * document, ID-token verification against the issuer's JSON Web Key Set (RS256/384/512,
 * PS256/384/512, ES256/384; `none` and HMAC are refused: a public client id is no key), the
 * claim checks of OpenID Connect Core 3.1.3.7 (iss, aud, azp, exp, iat, nbf, nonce, with a
 * small clock skew), a key cache that fetches the key set again when a token names an unknown
 * key (at most once per interval), and the PKCE (RFC 7636, S256) helpers. Uses node:crypto and
 * nothing else; fetching is the caller's (server/auth/oidc.ts), handed in as a function.
 */
import {
  createHash,
  createPublicKey,
  randomBytes,
  timingSafeEqual,
  constants as cryptoConstants,
  verify as cryptoVerify,
  type JsonWebKey,
  type KeyObject,
} from "node:crypto";

/** Why an OIDC step failed; `code` is stable for callers and tests, `message` is for people. */
export type OidcErrorCode =
  | "discovery"
  | "malformed"
  | "algorithm"
  | "unknown-key"
  | "signature"
  | "issuer"
  | "audience"
  | "azp"
  | "expired"
  | "not-yet-valid"
  | "issued-in-future"
  | "nonce"
  | "subject";

export class OidcError extends Error {
  constructor(
    readonly code: OidcErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "OidcError";
  }
}

/** The fields of an issuer's discovery document the sign-in uses. */
export interface OidcDiscovery {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
}

/** Signature algorithms accepted for ID tokens. */
const SUPPORTED_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
] as const;
export type SupportedAlgorithm = (typeof SUPPORTED_ALGORITHMS)[number];

interface AlgorithmSpec {
  hash: "sha256" | "sha384" | "sha512";
  kty: "RSA" | "EC";
  pss?: true;
  crv?: "P-256" | "P-384";
}

const ALGORITHMS: Record<SupportedAlgorithm, AlgorithmSpec> = {
  RS256: { hash: "sha256", kty: "RSA" },
  RS384: { hash: "sha384", kty: "RSA" },
  RS512: { hash: "sha512", kty: "RSA" },
  PS256: { hash: "sha256", kty: "RSA", pss: true },
  PS384: { hash: "sha384", kty: "RSA", pss: true },
  PS512: { hash: "sha512", kty: "RSA", pss: true },
  ES256: { hash: "sha256", kty: "EC", crv: "P-256" },
  ES384: { hash: "sha384", kty: "EC", crv: "P-384" },
};

function isSupported(alg: string): alg is SupportedAlgorithm {
  return Object.hasOwn(ALGORITHMS, alg);
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function isLoopbackHost(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** An endpoint URL of the issuer: https (http only on a loopback address), no fragment. */
function endpoint(doc: Record<string, unknown>, field: string): string {
  const v = doc[field];
  if (typeof v !== "string" || v.length > 2048) {
    throw new OidcError("discovery", `the issuer's discovery document has no ${field}`);
  }
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new OidcError("discovery", `the issuer's ${field} is not a URL`);
  }
  if (!(u.protocol === "https:" || (u.protocol === "http:" && isLoopbackHost(u.hostname)))) {
    throw new OidcError("discovery", `the issuer's ${field} must be an https URL`);
  }
  if (u.hash) throw new OidcError("discovery", `the issuer's ${field} must not have a fragment`);
  return v;
}

/**
 * Reads an issuer's discovery document (`/.well-known/openid-configuration`). Its `issuer` must
 * be exactly the configured one (OpenID Connect Discovery 4.3): otherwise a document served by
 * one issuer could vouch for another's tokens. PKCE with S256 and one of the supported signature
 * algorithms must be on offer when the document lists what it offers.
 */
export function parseDiscovery(doc: unknown, expectedIssuer: string): OidcDiscovery {
  if (!isRecord(doc)) throw new OidcError("discovery", "the discovery document is not an object");
  if (doc.issuer !== expectedIssuer) {
    throw new OidcError(
      "discovery",
      `the discovery document names issuer "${String(doc.issuer).slice(0, 200)}", not the configured "${expectedIssuer}"`,
    );
  }
  const methods = doc.code_challenge_methods_supported;
  if (Array.isArray(methods) && !methods.includes("S256")) {
    throw new OidcError("discovery", "the issuer does not offer PKCE with S256");
  }
  const algs = doc.id_token_signing_alg_values_supported;
  if (Array.isArray(algs) && !algs.some((a) => typeof a === "string" && isSupported(a))) {
    throw new OidcError(
      "discovery",
      `the issuer signs ID tokens with none of ${SUPPORTED_ALGORITHMS.join(", ")}`,
    );
  }
  return {
    issuer: expectedIssuer,
    authorizationEndpoint: endpoint(doc, "authorization_endpoint"),
    tokenEndpoint: endpoint(doc, "token_endpoint"),
    jwksUri: endpoint(doc, "jwks_uri"),
  };
}

/** A decoded (not yet verified) compact JWS. */
export interface DecodedJwt {
  header: { alg: string; kid?: string; typ?: string };
  payload: Record<string, unknown>;
  signingInput: Buffer;
  signature: Buffer;
}

/** The largest ID token accepted (real ones are a few KB). */
const MAX_TOKEN_LENGTH = 16_384;
const B64URL = /^[A-Za-z0-9_-]*$/;

function jsonPart(part: string, what: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    throw new OidcError("malformed", `the ID token's ${what} is not base64url JSON`);
  }
  if (!isRecord(v)) throw new OidcError("malformed", `the ID token's ${what} is not an object`);
  return v;
}

/** Splits and decodes a compact JWS; checks shape only, not the signature. */
export function decodeJwt(token: string): DecodedJwt {
  if (token.length > MAX_TOKEN_LENGTH) throw new OidcError("malformed", "the ID token is too long");
  const parts = token.split(".");
  if (parts.length !== 3 || !parts.every((p) => B64URL.test(p))) {
    throw new OidcError("malformed", "the ID token is not a compact JWS (three base64url parts)");
  }
  const [h, p, s] = parts as [string, string, string];
  const header = jsonPart(h, "header");
  if (typeof header.alg !== "string") throw new OidcError("malformed", "the ID token names no alg");
  if (header.kid !== undefined && typeof header.kid !== "string") {
    throw new OidcError("malformed", "the ID token's kid is not a string");
  }
  if (header.crit !== undefined) {
    throw new OidcError("malformed", "the ID token has critical header parameters");
  }
  return {
    header: {
      alg: header.alg,
      kid: header.kid as string | undefined,
      typ: typeof header.typ === "string" ? header.typ : undefined,
    },
    payload: jsonPart(p, "payload"),
    signingInput: Buffer.from(`${h}.${p}`),
    signature: Buffer.from(s, "base64url"),
  };
}

/** One usable key of a key set. */
export interface VerificationKey {
  kid?: string;
  /** The algorithm the key is limited to, when its JWK says. */
  alg?: string;
  kty: "RSA" | "EC";
  crv?: string;
  key: KeyObject;
}

/**
 * The signing keys of a JWKS document (RFC 7517). Keys for encryption, of other types, RSA keys
 * under 2048 bits, curves other than P-256 and P-384, and keys that do not import are left out; a document without any usable key is an error.
 */
export function parseJwks(doc: unknown): VerificationKey[] {
  if (!isRecord(doc) || !Array.isArray(doc.keys)) {
    throw new OidcError("unknown-key", "the issuer's JWKS is not a key set");
  }
  const keys: VerificationKey[] = [];
  for (const jwk of doc.keys.slice(0, 100)) {
    if (!isRecord(jwk)) continue;
    if (jwk.kty !== "RSA" && jwk.kty !== "EC") continue;
    if (jwk.use !== undefined && jwk.use !== "sig") continue;
    try {
      const key = createPublicKey({ key: jwk as JsonWebKey, format: "jwk" });
      const details = key.asymmetricKeyDetails;
      // RSA keys shorter than 2048 bits are refused (RFC 7518 3.3), as is any curve not P-256/384.
      if (jwk.kty === "RSA" && (details?.modulusLength ?? 0) < 2048) continue;
      if (jwk.kty === "EC" && !["prime256v1", "secp384r1"].includes(details?.namedCurve ?? "")) {
        continue;
      }
      keys.push({
        kid: typeof jwk.kid === "string" ? jwk.kid : undefined,
        alg: typeof jwk.alg === "string" ? jwk.alg : undefined,
        kty: jwk.kty,
        crv: typeof jwk.crv === "string" ? jwk.crv : undefined,
        key,
      });
    } catch {
      // A key node cannot import (an unsupported curve, a broken modulus) cannot verify anything.
    }
  }
  if (keys.length === 0)
    throw new OidcError("unknown-key", "the issuer's JWKS holds no usable key");
  return keys;
}

/** The keys of `keys` that may have signed a token with `alg` and `kid`. */
function candidateKeys(
  keys: readonly VerificationKey[],
  alg: SupportedAlgorithm,
  kid: string | undefined,
): VerificationKey[] {
  const spec = ALGORITHMS[alg];
  return keys.filter(
    (k) =>
      (kid === undefined || k.kid === kid) &&
      k.kty === spec.kty &&
      (k.alg === undefined || k.alg === alg) &&
      (spec.crv === undefined || k.crv === spec.crv),
  );
}

/** The algorithm of a token's header, refusing `none`, HMAC and anything unsupported. */
function tokenAlgorithm(decoded: DecodedJwt): SupportedAlgorithm {
  const alg = decoded.header.alg;
  if (!isSupported(alg)) {
    throw new OidcError(
      "algorithm",
      `ID tokens signed with "${alg.slice(0, 20)}" are refused (accepted: ${SUPPORTED_ALGORITHMS.join(", ")})`,
    );
  }
  return alg;
}

/** True when `key` made `decoded`'s signature with `alg`. */
function signatureValid(decoded: DecodedJwt, alg: SupportedAlgorithm, key: KeyObject): boolean {
  const spec = ALGORITHMS[alg];
  try {
    if (spec.kty === "EC") {
      return cryptoVerify(
        spec.hash,
        decoded.signingInput,
        { key, dsaEncoding: "ieee-p1363" },
        decoded.signature,
      );
    }
    return cryptoVerify(
      spec.hash,
      decoded.signingInput,
      spec.pss
        ? {
            key,
            padding: cryptoConstants.RSA_PKCS1_PSS_PADDING,
            saltLength: cryptoConstants.RSA_PSS_SALTLEN_DIGEST,
          }
        : { key, padding: cryptoConstants.RSA_PKCS1_PADDING },
      decoded.signature,
    );
  } catch {
    return false;
  }
}

/** The claims of a verified ID token that the sign-in reads. */
export interface IdTokenClaims {
  iss: string;
  sub: string;
  aud: string[];
  /** Expiry, epoch seconds. */
  exp: number;
  iat: number;
  nonce?: string;
  email?: string;
  [claim: string]: unknown;
}

export interface ClaimChecks {
  issuer: string;
  /** The client id: it must be an audience (and the authorized party when there are several). */
  clientId: string;
  /** The nonce the sign-in sent; required and compared when given. */
  nonce?: string;
  /** Epoch milliseconds. */
  now: number;
  /** Allowed clock difference, seconds (default 60). */
  skewSeconds?: number;
}

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function numericClaim(payload: Record<string, unknown>, name: string): number {
  const v = payload[name];
  if (typeof v !== "number" || !Number.isFinite(v)) {
    throw new OidcError("malformed", `the ID token has no numeric ${name} claim`);
  }
  return v;
}

/** Checks a (signature-verified) token's claims; returns them typed. */
export function checkClaims(payload: Record<string, unknown>, c: ClaimChecks): IdTokenClaims {
  const skew = c.skewSeconds ?? 60;
  const now = c.now / 1000;
  if (payload.iss !== c.issuer) {
    throw new OidcError(
      "issuer",
      `the ID token was issued by "${String(payload.iss).slice(0, 200)}", not "${c.issuer}"`,
    );
  }
  const aud =
    typeof payload.aud === "string"
      ? [payload.aud]
      : Array.isArray(payload.aud) && payload.aud.every((a) => typeof a === "string")
        ? (payload.aud as string[])
        : undefined;
  if (!aud || aud.length === 0) throw new OidcError("malformed", "the ID token has no audience");
  if (!aud.includes(c.clientId)) {
    throw new OidcError(
      "audience",
      `the ID token is for another audience (${aud
        .slice(0, 5)
        .map((a) => `"${a.slice(0, 100)}"`)
        .join(", ")}), not this dashboard's client "${c.clientId}"`,
    );
  }
  const azp = payload.azp;
  if (azp !== undefined && azp !== c.clientId) {
    throw new OidcError("azp", "the ID token was issued to another client (azp)");
  }
  if (aud.length > 1 && azp === undefined) {
    throw new OidcError("azp", "the ID token has several audiences but no authorized party (azp)");
  }
  const exp = numericClaim(payload, "exp");
  if (now >= exp + skew) throw new OidcError("expired", "the ID token has expired");
  const iat = numericClaim(payload, "iat");
  if (iat > now + skew)
    throw new OidcError("issued-in-future", "the ID token is issued in the future");
  if (payload.nbf !== undefined) {
    const nbf = numericClaim(payload, "nbf");
    if (nbf > now + skew) throw new OidcError("not-yet-valid", "the ID token is not valid yet");
  }
  if (c.nonce !== undefined) {
    if (typeof payload.nonce !== "string" || !sameString(payload.nonce, c.nonce)) {
      throw new OidcError("nonce", "the ID token's nonce is not the one this sign-in sent");
    }
  }
  if (typeof payload.sub !== "string" || payload.sub === "") {
    throw new OidcError("subject", "the ID token names no subject");
  }
  return { ...payload, iss: c.issuer, sub: payload.sub, aud, exp, iat } as IdTokenClaims;
}

/**
 * A key set fetched from the issuer and kept: a token naming a key the set lacks (the issuer
 * rotated its keys) makes it fetch the set again, but at most once per `minRefetchMs`, so tokens
 * with made-up key ids cannot make the dashboard hammer the issuer. The set is also refreshed
 * when older than `maxAgeMs`. Pure apart from the fetch function and the clock it is given.
 */
export class JwksCache {
  private keys: VerificationKey[] | undefined;
  private fetchedAt = -Infinity;
  private inflight: Promise<VerificationKey[]> | undefined;

  constructor(
    private readonly fetchJwks: () => Promise<unknown>,
    private readonly opts: { minRefetchMs?: number; maxAgeMs?: number } = {},
  ) {}

  private refetch(now: number): Promise<VerificationKey[]> {
    this.inflight ??= this.fetchJwks()
      .then((doc) => {
        const keys = parseJwks(doc);
        this.keys = keys;
        this.fetchedAt = now;
        return keys;
      })
      .finally(() => {
        this.inflight = undefined;
      });
    return this.inflight;
  }

  /** The keys that may verify a token with `alg` and `kid`, fetching the set when needed. */
  async keysFor(
    alg: SupportedAlgorithm,
    kid: string | undefined,
    now: number,
  ): Promise<VerificationKey[]> {
    const minRefetch = this.opts.minRefetchMs ?? 60_000;
    const maxAge = this.opts.maxAgeMs ?? 3_600_000;
    if (!this.keys || now - this.fetchedAt >= maxAge) await this.refetch(now);
    let found = candidateKeys(this.keys ?? [], alg, kid);
    if (found.length === 0 && now - this.fetchedAt >= minRefetch) {
      found = candidateKeys(await this.refetch(now), alg, kid);
    }
    return found;
  }
}

/**
 * Verifies an ID token: its algorithm, its signature by a key of the issuer's set, then its
 * claims. Returns the claims; throws an OidcError naming the first check that failed. The token
 * itself never appears in a message.
 */
export async function verifyIdToken(
  token: string,
  jwks: Pick<JwksCache, "keysFor">,
  checks: ClaimChecks,
): Promise<IdTokenClaims> {
  const decoded = decodeJwt(token);
  const alg = tokenAlgorithm(decoded);
  const keys = await jwks.keysFor(alg, decoded.header.kid, checks.now);
  if (keys.length === 0) {
    throw new OidcError(
      "unknown-key",
      decoded.header.kid
        ? `the issuer's key set has no ${alg} key "${decoded.header.kid.slice(0, 100)}"`
        : `the issuer's key set has no ${alg} key`,
    );
  }
  // Without a kid several keys may fit; a handful are tried, never an unbounded list.
  if (!keys.slice(0, 5).some((k) => signatureValid(decoded, alg, k.key))) {
    throw new OidcError("signature", "the ID token's signature does not verify");
  }
  return checkClaims(decoded.payload, checks);
}

/** A random URL-safe value of `bytes` bytes (state, nonce, PKCE verifier). */
export function randomUrlSafe(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/** The PKCE S256 challenge of a verifier (RFC 7636 4.2). */
export function pkceChallenge(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

/** A PKCE verifier must be 43–128 characters of the unreserved set (RFC 7636 4.1). */
export function isPkceVerifier(v: string): boolean {
  return /^[A-Za-z0-9._~-]{43,128}$/.test(v);
}

/** The authorization request URL (authorization code flow with PKCE S256). */
export function authorizationUrl(p: {
  endpoint: string;
  clientId: string;
  redirectUri: string;
  scopes: readonly string[];
  state: string;
  nonce: string;
  codeChallenge: string;
}): string {
  const u = new URL(p.endpoint);
  u.searchParams.set("response_type", "code");
  u.searchParams.set("client_id", p.clientId);
  u.searchParams.set("redirect_uri", p.redirectUri);
  u.searchParams.set("scope", p.scopes.join(" "));
  u.searchParams.set("state", p.state);
  u.searchParams.set("nonce", p.nonce);
  u.searchParams.set("code_challenge", p.codeChallenge);
  u.searchParams.set("code_challenge_method", "S256");
  return u.toString();
}

/** Scopes from PORTCULLIS_OIDC_SCOPES (space or comma separated); `openid` is always included. */
export function parseScopes(value: string | undefined): string[] {
  const named = (value ?? "openid email profile")
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => /^[\x21\x23-\x5b\x5d-\x7e]{1,100}$/.test(s));
  return [...new Set(["openid", ...named])];
}
