import {
  constants,
  createHmac,
  generateKeyPairSync,
  sign,
  type KeyObject,
  type JsonWebKey,
} from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  authorizationUrl,
  checkClaims,
  decodeJwt,
  isPkceVerifier,
  JwksCache,
  OidcError,
  parseDiscovery,
  parseJwks,
  parseScopes,
  pkceChallenge,
  randomUrlSafe,
  verifyIdToken,
  type ClaimChecks,
} from "./oidc";

const ISSUER = "https://issuer.example/dex";
const CLIENT = "portcullis";
const NOW = 1_800_000_000_000;

const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const rsa2 = generateKeyPairSync("rsa", { modulusLength: 2048 });
const p256 = generateKeyPairSync("ec", { namedCurve: "P-256" });
const p384 = generateKeyPairSync("ec", { namedCurve: "P-384" });

function jwk(pub: KeyObject, kid: string, extra: Record<string, unknown> = {}): JsonWebKey {
  return { ...pub.export({ format: "jwk" }), kid, use: "sig", ...extra };
}

const KEYSET = {
  keys: [jwk(rsa.publicKey, "rsa-1"), jwk(p256.publicKey, "ec-256"), jwk(p384.publicKey, "ec-384")],
};

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

function claims(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    iss: ISSUER,
    sub: "CiQwOGE4Njg0Yi1kYjg4",
    aud: CLIENT,
    exp: NOW / 1000 + 600,
    iat: NOW / 1000,
    nonce: "n-0S6_WzA2Mj",
    email: "alice@example.com",
    ...over,
  };
}

/** Signs a token the way an issuer would. */
function token(
  alg: string,
  key: KeyObject | Buffer,
  payload: Record<string, unknown> = claims(),
  header: Record<string, unknown> = {},
): string {
  const input = `${b64({ alg, typ: "JWT", ...header })}.${b64(payload)}`;
  let sig: Buffer;
  const hash = `sha${alg.slice(2)}`;
  if (alg.startsWith("HS"))
    sig = createHmac(hash, key as Buffer)
      .update(input)
      .digest();
  else if (alg.startsWith("ES")) {
    sig = sign(hash, Buffer.from(input), { key: key as KeyObject, dsaEncoding: "ieee-p1363" });
  } else if (alg.startsWith("PS")) {
    sig = sign(hash, Buffer.from(input), {
      key: key as KeyObject,
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
    });
  } else if (alg === "none") sig = Buffer.alloc(0);
  else sig = sign(hash, Buffer.from(input), key as KeyObject);
  return `${input}.${sig.toString("base64url")}`;
}

const checks: ClaimChecks = { issuer: ISSUER, clientId: CLIENT, nonce: "n-0S6_WzA2Mj", now: NOW };

function cacheOf(doc: unknown, counter = { fetches: 0 }) {
  return new JwksCache(
    async () => {
      counter.fetches++;
      return doc;
    },
    { minRefetchMs: 30_000 },
  );
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof OidcError) return e.code;
    throw e;
  }
  return "ok";
}

describe("verifyIdToken", () => {
  it.each([
    ["RS256", rsa.privateKey, "rsa-1"],
    ["RS384", rsa.privateKey, "rsa-1"],
    ["RS512", rsa.privateKey, "rsa-1"],
    ["PS256", rsa.privateKey, "rsa-1"],
    ["PS384", rsa.privateKey, "rsa-1"],
    ["PS512", rsa.privateKey, "rsa-1"],
    ["ES256", p256.privateKey, "ec-256"],
    ["ES384", p384.privateKey, "ec-384"],
  ] as const)("accepts %s signed by the issuer's key", async (alg, key, kid) => {
    const got = await verifyIdToken(token(alg, key, claims(), { kid }), cacheOf(KEYSET), checks);
    expect(got).toMatchObject({ sub: "CiQwOGE4Njg0Yi1kYjg4", email: "alice@example.com" });
    expect(got.aud).toEqual([CLIENT]);
  });

  it("finds the key without a kid by type and curve", async () => {
    const t = token("ES384", p384.privateKey);
    expect(await codeOf(verifyIdToken(t, cacheOf(KEYSET), checks))).toBe("ok");
  });

  it("refuses none, HMAC (even keyed with a public key's bytes) and unknown algorithms", async () => {
    const pem = Buffer.from(rsa.publicKey.export({ format: "pem", type: "spki" }));
    for (const t of [
      token("none", pem, claims(), { kid: "rsa-1" }),
      token("HS256", pem, claims(), { kid: "rsa-1" }),
      token("HS256", Buffer.from(CLIENT), claims()),
      token("RS256", rsa.privateKey, claims(), { alg: "EdDSA" }),
    ]) {
      expect(await codeOf(verifyIdToken(t, cacheOf(KEYSET), checks))).toBe("algorithm");
    }
  });

  it("refuses a signature by another key, a tampered payload, and a key of the wrong type", async () => {
    const other = token("RS256", rsa2.privateKey, claims(), { kid: "rsa-1" });
    expect(await codeOf(verifyIdToken(other, cacheOf(KEYSET), checks))).toBe("signature");
    const good = token("RS256", rsa.privateKey, claims(), { kid: "rsa-1" });
    const [h, , s] = good.split(".");
    const forged = `${h}.${b64(claims({ email: "admin@example.com" }))}.${s}`;
    expect(await codeOf(verifyIdToken(forged, cacheOf(KEYSET), checks))).toBe("signature");
    // An RSA algorithm naming an EC key: no candidate key.
    const mixed = token("RS256", rsa.privateKey, claims(), { kid: "ec-256" });
    expect(await codeOf(verifyIdToken(mixed, cacheOf(KEYSET), checks))).toBe("unknown-key");
    // ES256 and ES384 keys are not interchangeable.
    const curve = token("ES256", p256.privateKey, claims(), { kid: "ec-384" });
    expect(await codeOf(verifyIdToken(curve, cacheOf(KEYSET), checks))).toBe("unknown-key");
  });

  it("honours a key's own alg", async () => {
    const set = { keys: [jwk(rsa.publicKey, "k", { alg: "PS256" })] };
    const rs = token("RS256", rsa.privateKey, claims(), { kid: "k" });
    expect(await codeOf(verifyIdToken(rs, cacheOf(set), checks))).toBe("unknown-key");
    const ps = token("PS256", rsa.privateKey, claims(), { kid: "k" });
    expect(await codeOf(verifyIdToken(ps, cacheOf(set), checks))).toBe("ok");
  });

  it("refetches the key set for an unknown kid, at most once per interval", async () => {
    let doc: unknown = { keys: [jwk(rsa.publicKey, "old")] };
    let fetches = 0;
    const cache = new JwksCache(
      async () => {
        fetches++;
        return doc;
      },
      { minRefetchMs: 30_000 },
    );
    const at = (now: number) => ({ ...checks, now });
    const old = token("RS256", rsa.privateKey, claims(), { kid: "old" });
    expect(await codeOf(verifyIdToken(old, cache, at(NOW)))).toBe("ok");
    expect(fetches).toBe(1);
    // The issuer rotates: a token with the new kid makes the cache fetch the new set…
    doc = { keys: [jwk(rsa2.publicKey, "new")] };
    const rotated = token("RS256", rsa2.privateKey, claims(), { kid: "new" });
    expect(await codeOf(verifyIdToken(rotated, cache, at(NOW + 31_000)))).toBe("ok");
    expect(fetches).toBe(2);
    // …but made-up kids do not make it fetch again within the interval.
    for (let i = 0; i < 20; i++) {
      const made = token("RS256", rsa2.privateKey, claims(), { kid: `x${i}` });
      expect(await codeOf(verifyIdToken(made, cache, at(NOW + 32_000 + i)))).toBe("unknown-key");
    }
    expect(fetches).toBe(2);
    const later = token("RS256", rsa2.privateKey, claims(), { kid: "x-late" });
    expect(await codeOf(verifyIdToken(later, cache, at(NOW + 62_000)))).toBe("unknown-key");
    expect(fetches).toBe(3);
  });

  it("refuses malformed tokens plainly", async () => {
    for (const t of [
      "",
      "a.b",
      "a.b.c.d",
      "!!.e30.",
      `${b64({ typ: "JWT" })}.e30.`,
      "x".repeat(20_000),
    ]) {
      expect(await codeOf(verifyIdToken(t, cacheOf(KEYSET), checks)), t.slice(0, 20)).toBe(
        "malformed",
      );
    }
    const crit = token("RS256", rsa.privateKey, claims(), { crit: ["b64"], kid: "rsa-1" });
    expect(await codeOf(verifyIdToken(crit, cacheOf(KEYSET), checks))).toBe("malformed");
  });
});

describe("checkClaims", () => {
  const code = (payload: Record<string, unknown>, c: ClaimChecks = checks) => {
    try {
      checkClaims(payload, c);
      return "ok";
    } catch (e) {
      return e instanceof OidcError ? e.code : String(e);
    }
  };

  it("checks the issuer exactly", () => {
    expect(code(claims({ iss: `${ISSUER}/` }))).toBe("issuer");
    expect(code(claims({ iss: "https://evil.example/dex" }))).toBe("issuer");
  });

  it("checks the audience and the authorized party", () => {
    expect(code(claims({ aud: "other-app" }))).toBe("audience");
    expect(code(claims({ aud: ["other-app", "more"] }))).toBe("audience");
    expect(code(claims({ aud: [CLIENT, "other-app"] }))).toBe("azp");
    expect(code(claims({ aud: [CLIENT, "other-app"], azp: CLIENT }))).toBe("ok");
    expect(code(claims({ aud: CLIENT, azp: "other-app" }))).toBe("azp");
    expect(code(claims({ aud: [] }))).toBe("malformed");
    expect(code(claims({ aud: 7 }))).toBe("malformed");
  });

  it("checks exp, iat and nbf with a small clock skew", () => {
    const s = NOW / 1000;
    expect(code(claims({ exp: s - 30 }))).toBe("ok");
    expect(code(claims({ exp: s - 61 }))).toBe("expired");
    expect(code(claims({ exp: s - 1 }), { ...checks, skewSeconds: 0 })).toBe("expired");
    expect(code(claims({ exp: undefined }))).toBe("malformed");
    expect(code(claims({ exp: "tomorrow" }))).toBe("malformed");
    expect(code(claims({ iat: s + 30 }))).toBe("ok");
    expect(code(claims({ iat: s + 120 }))).toBe("issued-in-future");
    expect(code(claims({ nbf: s + 120 }))).toBe("not-yet-valid");
    expect(code(claims({ nbf: s }))).toBe("ok");
  });

  it("checks the nonce when the sign-in sent one, and requires a subject", () => {
    expect(code(claims({ nonce: "another" }))).toBe("nonce");
    expect(code(claims({ nonce: undefined }))).toBe("nonce");
    expect(code(claims({ nonce: undefined }), { ...checks, nonce: undefined })).toBe("ok");
    expect(code(claims({ sub: "" }))).toBe("subject");
  });
});

describe("parseDiscovery", () => {
  const doc = {
    issuer: ISSUER,
    authorization_endpoint: `${ISSUER}/auth`,
    token_endpoint: `${ISSUER}/token`,
    jwks_uri: `${ISSUER}/keys`,
    code_challenge_methods_supported: ["S256", "plain"],
    id_token_signing_alg_values_supported: ["RS256"],
  };

  it("reads the endpoints", () => {
    expect(parseDiscovery(doc, ISSUER)).toEqual({
      issuer: ISSUER,
      authorizationEndpoint: `${ISSUER}/auth`,
      tokenEndpoint: `${ISSUER}/token`,
      jwksUri: `${ISSUER}/keys`,
    });
  });

  it("refuses another issuer, plain-http endpoints, and issuers without S256 or our algorithms", () => {
    const bad = (over: Record<string, unknown>) => () =>
      parseDiscovery({ ...doc, ...over }, ISSUER);
    expect(bad({ issuer: "https://evil.example" })).toThrow(/not the configured/);
    expect(bad({ token_endpoint: "http://issuer.example/token" })).toThrow(/https/);
    expect(bad({ jwks_uri: undefined })).toThrow(/jwks_uri/);
    expect(bad({ code_challenge_methods_supported: ["plain"] })).toThrow(/S256/);
    expect(bad({ id_token_signing_alg_values_supported: ["HS256"] })).toThrow(/none of/);
    expect(() => parseDiscovery("nope", ISSUER)).toThrow(OidcError);
    // Loopback issuers may use http (development set-ups).
    const local = "http://127.0.0.1:5556/dex";
    expect(
      parseDiscovery(
        {
          issuer: local,
          authorization_endpoint: `${local}/auth`,
          token_endpoint: `${local}/token`,
          jwks_uri: `${local}/keys`,
        },
        local,
      ).tokenEndpoint,
    ).toBe(`${local}/token`);
  });
});

describe("parseJwks", () => {
  it("keeps signing keys it can import and drops the rest", () => {
    const keys = parseJwks({
      keys: [
        jwk(rsa.publicKey, "a"),
        jwk(rsa.publicKey, "enc", { use: "enc" }),
        { kty: "oct", k: "c2VjcmV0", kid: "h" },
        { kty: "RSA", kid: "broken", n: "AA", e: "" },
        jwk(generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey, "short"),
        jwk(generateKeyPairSync("ec", { namedCurve: "secp256k1" }).publicKey, "k1"),
        "junk",
      ],
    });
    expect(keys.map((k) => k.kid)).toEqual(["a"]);
    expect(() => parseJwks({ keys: [] })).toThrow(/no usable key/);
    expect(() => parseJwks({})).toThrow(OidcError);
  });
});

describe("decodeJwt", () => {
  it("decodes header and payload without verifying", () => {
    const d = decodeJwt(token("RS256", rsa.privateKey, claims(), { kid: "rsa-1" }));
    expect(d.header).toMatchObject({ alg: "RS256", kid: "rsa-1" });
    expect(d.payload.sub).toBe("CiQwOGE4Njg0Yi1kYjg4");
  });
});

describe("PKCE and the authorization request", () => {
  it("computes the S256 challenge of RFC 7636's example", () => {
    expect(pkceChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe(
      "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    );
  });

  it("makes verifiers of the allowed shape, each different", () => {
    const a = randomUrlSafe();
    expect(isPkceVerifier(a)).toBe(true);
    expect(a).not.toBe(randomUrlSafe());
    expect(isPkceVerifier("short")).toBe(false);
    expect(isPkceVerifier("a".repeat(43) + "/")).toBe(false);
  });

  it("builds the authorization URL with state, nonce and the S256 challenge", () => {
    const u = new URL(
      authorizationUrl({
        endpoint: `${ISSUER}/auth?prompt=login`,
        clientId: CLIENT,
        redirectUri: "https://portcullis.example/sign-in/oidc",
        scopes: ["openid", "email"],
        state: "st",
        nonce: "no",
        codeChallenge: "ch",
      }),
    );
    expect(Object.fromEntries(u.searchParams)).toEqual({
      prompt: "login",
      response_type: "code",
      client_id: CLIENT,
      redirect_uri: "https://portcullis.example/sign-in/oidc",
      scope: "openid email",
      state: "st",
      nonce: "no",
      code_challenge: "ch",
      code_challenge_method: "S256",
    });
  });

  it("always asks for openid, and drops scopes with forbidden characters", () => {
    expect(parseScopes(undefined)).toEqual(["openid", "email", "profile"]);
    expect(parseScopes("email, groups")).toEqual(["openid", "email", "groups"]);
    expect(parseScopes('openid "x" a\\b groups')).toEqual(["openid", "groups"]);
  });
});
