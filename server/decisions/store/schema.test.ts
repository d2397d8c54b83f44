/**
 * Opening a database on SQLite and PostgreSQL: the tables are created once, and a database with
 * other tables under the store's names (a development version's schema, no release's) is refused
 * with an error naming the table, nothing written.
 */
import { expect, it } from "vitest";
import { sql } from "../sql";
import { describeStores, parsed } from "./test-support";

describeStores("DecisionStore schema", (ctx) => {
  /** The tables of the database (those the store knows of, old ones included). */
  const tables = async () => {
    const rows = await ctx.store.driver.query<{ name: string }>(
      ctx.store.driver.dialect === "sqlite"
        ? sql`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`
        : sql`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name`,
    );
    return rows.map((r) => r.name);
  };

  it("creates its tables once: opening again keeps what is stored", async () => {
    await ctx.store.ingest([parsed("e1")]);
    const created = await tables();
    expect(created).toEqual(
      [
        "admission_calls",
        "admission_events",
        "admission_names",
        "audit_log_cursor",
        ...(ctx.store.driver.dialect === "sqlite" ? ["admission_hook_spans"] : []),
      ].sort(),
    );
    await ctx.store.migrate();
    await ctx.store.driver.close();
    ctx.store = ctx.open();
    await ctx.store.migrate();
    expect(await tables()).toEqual(created);
    expect(await ctx.store.counts()).toEqual({ events: 1, decisions: 1 });
  });

  it.each([
    {
      schema: "names as text",
      ddl: "CREATE TABLE admission_decisions (id INTEGER PRIMARY KEY, hook TEXT NOT NULL)",
      error: /holds admission_decisions, .* no release had/,
    },
    {
      schema: "two tables",
      ddl: "CREATE TABLE decision_events (id INTEGER PRIMARY KEY, raw TEXT NOT NULL); CREATE TABLE decisions (id INTEGER PRIMARY KEY, event_id BIGINT NOT NULL)",
      error: /holds decision_events and decisions, .* no release had/,
    },
  ])(
    "refuses a database of a development version's schema ($schema), naming its tables",
    async ({ ddl, error }) => {
      await ctx.store.driver.close();
      await ctx.backend.reset();
      const d = ctx.backend.driver();
      await d.exec(ddl);
      await d.close();
      ctx.store = ctx.open();
      const before = await tables();
      await expect(ctx.store.migrate()).rejects.toThrow(error);
      // Nothing created beside them.
      expect(await tables()).toEqual(before);
    },
  );

  it("refuses a table of the store's with other columns, naming the table and the columns", async () => {
    // admission_events as before packing: no `packed` column.
    await ctx.store.driver.exec(
      `DROP TABLE admission_events; CREATE TABLE admission_events (id BIGINT PRIMARY KEY, raw TEXT NOT NULL, extra TEXT)`,
    );
    await ctx.store.driver.close();
    ctx.store = ctx.open();
    await expect(ctx.store.migrate()).rejects.toThrow(
      /table admission_events is not this version's \(missing packed; unknown extra\)/,
    );
  });
});
