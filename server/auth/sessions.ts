import "server-only";
import { createHash } from "node:crypto";
import { SESSION_IDLE_MS, SESSION_MAX_AGE_MS } from "@/lib/auth/session-cookie";
import { decisionStore } from "@/server/decisions/instance";
import { sql, type SqlDriver } from "@/server/decisions/sql";
import { decryptToken, encryptToken, newSessionId } from "./secret";

/** Who a session acts as, as the apiserver named the user at sign-in. */
export interface SessionUser {
  username: string;
  uid: string;
  groups: string[];
}

/** How the user signed in: a pasted bearer token, or OIDC (the session then holds the ID token). */
export type SignInMethod = "token" | "oidc";

export interface Session extends SessionUser {
  method: SignInMethod;
  /** The user's bearer token; absent in impersonation mode (none is kept). */
  token?: string;
  created: number;
  expires: number;
}

interface Row {
  username: string;
  uid: string;
  groups: string;
  token: string | null;
  method: string | null;
  created: number | string;
  last_seen: number | string;
  expires: number | string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS portcullis_sessions (
  id_hash TEXT PRIMARY KEY,
  username TEXT NOT NULL,
  uid TEXT NOT NULL,
  groups TEXT NOT NULL,
  token TEXT,
  created BIGINT NOT NULL,
  last_seen BIGINT NOT NULL,
  expires BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS portcullis_sessions_expires ON portcullis_sessions (expires);
CREATE TABLE IF NOT EXISTS portcullis_oidc_states (
  state_hash TEXT PRIMARY KEY,
  expires BIGINT NOT NULL
);
`;

/** Last-use times are written at most this often per session (reads stay reads). */
const TOUCH_EVERY_MS = 30_000;

/** Rows are keyed by a hash of the id: the database alone does not let anyone resume a session. */
function idHash(id: string): string {
  return createHash("sha256").update(id).digest("hex");
}

/**
 * Server-side sessions of shared mode, in the decision store's database (SQLite, or PostgreSQL
 * shared by several replicas). Tokens are stored encrypted with the session secret.
 */
export class SessionStore {
  constructor(private readonly db: SqlDriver) {}

  async migrate(): Promise<void> {
    await this.db.exec(SCHEMA);
    // Tables made before OIDC sign-in lack the method column (their sessions were all "token").
    if (this.db.dialect === "postgres") {
      await this.db.exec("ALTER TABLE portcullis_sessions ADD COLUMN IF NOT EXISTS method TEXT");
      return;
    }
    const columns = await this.db.query<{ name: string }>(
      sql`SELECT name FROM pragma_table_info('portcullis_sessions')`,
    );
    if (!columns.some((c) => c.name === "method")) {
      await this.db.exec("ALTER TABLE portcullis_sessions ADD COLUMN method TEXT");
    }
  }

  /**
   * Starts a session for `user`; returns its id (the cookie carries it, signed). It ends
   * SESSION_MAX_AGE_MS after `now`, or at `expires` when that is sooner (an OIDC session ends
   * with its ID token).
   */
  async create(
    user: SessionUser,
    token: string | undefined,
    now = Date.now(),
    opts: { method?: SignInMethod; expires?: number } = {},
  ): Promise<string> {
    const id = newSessionId();
    const h = idHash(id);
    const expires = Math.min(now + SESSION_MAX_AGE_MS, opts.expires ?? Infinity);
    await this.db.query(
      sql`INSERT INTO portcullis_sessions (id_hash, username, uid, groups, token, method, created, last_seen, expires)
          VALUES (${h}, ${user.username}, ${user.uid}, ${JSON.stringify(user.groups)}, ${
            token === undefined ? null : encryptToken(token, h)
          }, ${opts.method ?? "token"}, ${now}, ${now}, ${expires})`,
    );
    return id;
  }

  /**
   * Marks an OIDC sign-in's state as used; false when it was used before (a replayed callback).
   * Kept in the database so replicas sharing it refuse a state another replica consumed.
   */
  async consumeOidcState(state: string, expires: number, now = Date.now()): Promise<boolean> {
    await this.db.query(sql`DELETE FROM portcullis_oidc_states WHERE expires <= ${now}`);
    const rows = await this.db.query(
      sql`INSERT INTO portcullis_oidc_states (state_hash, expires) VALUES (${idHash(`oidc-state:${state}`)}, ${expires})
          ON CONFLICT (state_hash) DO NOTHING RETURNING state_hash`,
    );
    return rows.length === 1;
  }

  /** The live session `id`, or undefined when unknown, expired or idle too long (then deleted). */
  async get(id: string, now = Date.now()): Promise<Session | undefined> {
    const h = idHash(id);
    const [row] = await this.db.query<Row>(
      sql`SELECT username, uid, groups, token, method, created, last_seen, expires FROM portcullis_sessions WHERE id_hash = ${h}`,
    );
    if (!row) return undefined;
    const lastSeen = Number(row.last_seen);
    const expires = Number(row.expires);
    if (now >= expires || now - lastSeen >= SESSION_IDLE_MS) {
      await this.db.query(sql`DELETE FROM portcullis_sessions WHERE id_hash = ${h}`);
      return undefined;
    }
    if (now - lastSeen >= TOUCH_EVERY_MS) {
      await this.db.query(
        sql`UPDATE portcullis_sessions SET last_seen = ${now} WHERE id_hash = ${h}`,
      );
    }
    return {
      username: row.username,
      uid: row.uid,
      groups: JSON.parse(row.groups) as string[],
      token: row.token === null ? undefined : decryptToken(row.token, h),
      method: row.method === "oidc" ? "oidc" : "token",
      created: Number(row.created),
      expires,
    };
  }

  /** Ends a session (sign-out). */
  async delete(id: string): Promise<void> {
    await this.db.query(sql`DELETE FROM portcullis_sessions WHERE id_hash = ${idHash(id)}`);
  }

  /** Deletes sessions past their expiry or idle timeout. */
  async prune(now = Date.now()): Promise<void> {
    await this.db.query(
      sql`DELETE FROM portcullis_sessions WHERE expires <= ${now} OR last_seen <= ${now - SESSION_IDLE_MS}`,
    );
  }
}

const g = globalThis as typeof globalThis & { portcullisSessions?: Promise<SessionStore> };

/** The process-wide session store, its table created on first use (a failed open is retried). */
export function sessionStore(): Promise<SessionStore> {
  if (!g.portcullisSessions) {
    const opening = (async () => {
      const store = new SessionStore((await decisionStore()).driver);
      await store.migrate();
      await store.prune();
      return store;
    })();
    g.portcullisSessions = opening;
    opening.catch(() => {
      if (g.portcullisSessions === opening) g.portcullisSessions = undefined;
    });
  }
  return g.portcullisSessions;
}
