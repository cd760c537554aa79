/**
 * The test bindings with every write counted: D1 statements that change rows, R2 puts and
 * deletes, queue sends, and any use of a run's coordinator Durable Object. A refused body must
 * leave all of them at zero. The request-rate bucket (TENANT_LIMITER) and an API key's
 * last_used_at are bookkeeping of the request itself, not of its body, and are not counted.
 */
import { env } from "cloudflare:workers";
import type { Env } from "../../src/env";

const WRITE_SQL = /^\s*(insert|update|delete|replace|create|drop|alter)\b/i;
const BOOKKEEPING_SQL = /last_used_at/i;

export interface Writes {
  d1: string[];
  r2: string[];
  queue: number;
  coordinator: number;
}

export function countingEnv(): { env: Env; writes: Writes; reset(): void } {
  const writes: Writes = { d1: [], r2: [], queue: 0, coordinator: 0 };
  const counts = (sql: string) => WRITE_SQL.test(sql) && !BOOKKEEPING_SQL.test(sql);
  const real = new WeakMap<object, D1PreparedStatement>();
  const sqlOf = new WeakMap<object, string>();
  const statement = (stmt: D1PreparedStatement, sql: string): D1PreparedStatement => {
    const wrapped = {
      bind: (...args: unknown[]) => statement(stmt.bind(...args), sql),
      run: (...a: []) => (counts(sql) && writes.d1.push(sql), stmt.run(...a)),
      all: (...a: []) => (counts(sql) && writes.d1.push(sql), stmt.all(...a)),
      first: (...a: [string?]) => (counts(sql) && writes.d1.push(sql), (stmt.first as (...x: unknown[]) => unknown)(...a)),
      raw: (...a: unknown[]) => (counts(sql) && writes.d1.push(sql), (stmt.raw as (...x: unknown[]) => unknown)(...a)),
    } as unknown as D1PreparedStatement;
    real.set(wrapped, stmt);
    sqlOf.set(wrapped, sql);
    return wrapped;
  };
  const db = {
    prepare: (sql: string) => statement(env.DB.prepare(sql), sql),
    batch: (stmts: D1PreparedStatement[]) => {
      for (const s of stmts) if (counts(sqlOf.get(s) ?? "")) writes.d1.push(sqlOf.get(s)!);
      return env.DB.batch(stmts.map((s) => real.get(s) ?? s));
    },
    exec: (sql: string) => (writes.d1.push(sql), env.DB.exec(sql)),
    withSession: () => db,
    dump: () => env.DB.dump(),
  } as unknown as D1Database;
  const blobs = new Proxy(env.BLOBS, {
    get(target, prop) {
      const v = Reflect.get(target, prop) as unknown;
      if (typeof v !== "function") return v;
      if (prop === "put" || prop === "delete" || prop === "createMultipartUpload")
        return (...a: unknown[]) => (writes.r2.push(String(a[0])), (v as (...x: unknown[]) => unknown).apply(target, a));
      return (v as (...x: unknown[]) => unknown).bind(target);
    },
  });
  const queue = {
    send: async () => void (writes.queue += 1),
    sendBatch: async (ms: unknown[]) => void (writes.queue += ms.length),
  } as unknown as Queue<unknown>;
  const runs = new Proxy(env.RUNS, {
    get(target, prop) {
      const v = Reflect.get(target, prop) as unknown;
      if (typeof v !== "function") return v;
      return (...a: unknown[]) => {
        writes.coordinator += 1;
        return (v as (...x: unknown[]) => unknown).apply(target, a);
      };
    },
  });
  return {
    env: { ...(env as unknown as Env), DB: db, BLOBS: blobs, JOBS: queue, RUNS: runs },
    writes,
    reset: () => Object.assign(writes, { d1: [], r2: [], queue: 0, coordinator: 0 }),
  };
}

export const total = (w: Writes) => w.d1.length + w.r2.length + w.queue + w.coordinator;
