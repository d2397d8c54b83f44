/**
 * ID-token verification as the OIDC sign-in does it (lib/auth/oidc.ts: decode, pick the key from
 * the cached key set, verify the signature, check the claims), for an RS256 token (2048-bit key,
 * what most issuers, Dex among them, sign with) and an ES256 one. One verification per sign-in,
 * so the number matters little; it is kept to catch a slip such as re-importing keys per token.
 */
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { pathToFileURL } from "node:url";
import { JwksCache, verifyIdToken } from "@/lib/auth/oidc";

export const benches = ["oidc-verify-rs256-us", "oidc-verify-es256-us"];

const ISSUER = "https://issuer.example/dex";
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

function tokenOf(alg: "RS256" | "ES256", kid: string, key: KeyObject, now: number): string {
  const input = `${b64({ alg, kid, typ: "JWT" })}.${b64({
    iss: ISSUER,
    sub: "CghhbGljZS1pZBIFbG9jYWw",
    aud: "portcullis",
    exp: Math.floor(now / 1000) + 3600,
    iat: Math.floor(now / 1000),
    nonce: "n".repeat(43),
    email: "alice@example.com",
    email_verified: true,
  })}`;
  const sig = sign("sha256", Buffer.from(input), {
    key,
    ...(alg === "ES256" ? { dsaEncoding: "ieee-p1363" as const } : {}),
  });
  return `${input}.${sig.toString("base64url")}`;
}

async function median(token: string, jwks: JwksCache, now: number): Promise<number> {
  const checks = { issuer: ISSUER, clientId: "portcullis", nonce: "n".repeat(43), now };
  for (let i = 0; i < 200; i++) await verifyIdToken(token, jwks, checks);
  const samples: number[] = [];
  const batch = 50;
  for (let s = 0; s < 100; s++) {
    const t0 = performance.now();
    for (let k = 0; k < batch; k++) await verifyIdToken(token, jwks, checks);
    samples.push(((performance.now() - t0) * 1000) / batch);
  }
  samples.sort((a, b) => a - b);
  return Math.round((samples[Math.floor(samples.length / 2)] ?? NaN) * 100) / 100;
}

/** Runs the benchmark; one entry per measurement. */
export async function run(): Promise<Array<{ bench: string; value: number; unit: string }>> {
  const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwks = new JwksCache(async () => ({
    keys: [
      { ...rsa.publicKey.export({ format: "jwk" }), kid: "rsa", use: "sig", alg: "RS256" },
      { ...ec.publicKey.export({ format: "jwk" }), kid: "ec", use: "sig", alg: "ES256" },
    ],
  }));
  const now = Date.now();
  return [
    {
      bench: "oidc-verify-rs256-us",
      value: await median(tokenOf("RS256", "rsa", rsa.privateKey, now), jwks, now),
      unit: "us",
    },
    {
      bench: "oidc-verify-es256-us",
      value: await median(tokenOf("ES256", "ec", ec.privateKey, now), jwks, now),
      unit: "us",
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const m of await run()) console.log(JSON.stringify(m));
}
