/** Where a secret must not be: every row of D1 and every object of R2, and the forms a secret may take there. */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";

const hex = (s: string) => [...new TextEncoder().encode(s)].map((b) => b.toString(16).padStart(2, "0")).join("");
export const forms = (s: string) => [s, btoa(s), btoa(s).replace(/=+$/, ""), hex(s)];

/** Every row of every table of D1, as text. */
export async function d1Dump(): Promise<string> {
  const { results: tables } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%'",
  ).all<{ name: string }>();
  const out: string[] = [];
  for (const { name } of tables) out.push(JSON.stringify((await env.DB.prepare(`SELECT * FROM "${name}"`).all()).results));
  return out.join("\n");
}

/** Every object of R2: key, metadata and body. */
export async function r2Dump(): Promise<string> {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.BLOBS.list({ cursor, include: ["customMetadata", "httpMetadata"] });
    for (const o of page.objects) {
      const obj = await env.BLOBS.get(o.key);
      out.push(o.key, JSON.stringify(o.customMetadata ?? {}), obj ? await obj.text() : "");
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return out.join("\n");
}


/** Every row of every table of a run's coordinator Durable Object, as text. */
export function coordinatorDump(name: string): Promise<string> {
  return runInDurableObject(env.RUNS.getByName(name), async (_i, state) => {
    const names = state.storage.sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%'").toArray();
    return names.map(({ name }) => JSON.stringify(state.storage.sql.exec(`SELECT * FROM "${name}"`).toArray())).join("\n");
  });
}
