/**
 * The agentic workspace at the edge: one R2 prefix per question of a run,
 * `t/{tenant}/runs/{run}/workspaces/{question_id}/`, implementing the core's WorkspacePort.
 *
 * Bounded on every side so an agent (or an answer's files) cannot exhaust a Worker: listings are
 * capped, reads return at most MAX_READ characters, grep scans a bounded number of files of a
 * bounded size, writes are capped. Paths are relative to the prefix; absolute paths, `..` and
 * empty segments are refused, so a tool call cannot reach another question's or run's objects.
 */
import { r2Keys, type RunRef } from "../storage/r2-keys";
import type { GrepHit, WorkspaceEntry, WorkspacePort, WsResult } from "../rubric/agentic/types";

export const WORKSPACE_LIMITS = {
  maxList: 500,
  maxRead: 8_000,
  maxGrepFiles: 50,
  maxGrepFileBytes: 256 * 1024,
  maxGrepHits: 100,
  maxWriteBytes: 5 * 1024 * 1024,
};

export function workspacePrefix(run: RunRef, questionId: string): string {
  return r2Keys.workspace(run, questionId);
}

export function cleanPath(path: string): string | null {
  const p = path.replace(/^\.\//, "");
  if (!p || p.startsWith("/") || p.includes("\\")) return null;
  const parts = p.split("/");
  if (parts.some((s, i) => s === ".." || s === "." || (s === "" && i < parts.length - 1))) return null;
  return p;
}

const bad = (path: string): WsResult<never> => ({ ok: false, error: `invalid workspace path: ${JSON.stringify(path)}` });

export function r2Workspace(bucket: R2Bucket, prefix: string, limits = WORKSPACE_LIMITS): WorkspacePort {
  async function listAll(sub: string): Promise<WorkspaceEntry[]> {
    const out: WorkspaceEntry[] = [];
    let cursor: string | undefined;
    do {
      const page = await bucket.list({ prefix: prefix + sub, cursor, limit: Math.min(1000, limits.maxList + 1) });
      for (const o of page.objects) out.push({ path: o.key.slice(prefix.length), size: o.size });
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor && out.length <= limits.maxList);
    return out;
  }
  return {
    label: "workspace/",
    async list(sub = "") {
      if (sub && cleanPath(sub) === null) return bad(sub);
      const all = await listAll(sub);
      return { ok: true, value: all.slice(0, limits.maxList) };
    },
    async read(path, offset = 0, length = limits.maxRead) {
      const p = cleanPath(path);
      if (p === null) return bad(path);
      const obj = await bucket.get(prefix + p);
      if (!obj) return { ok: false, error: `no such file: ${p}` };
      const text = await obj.text();
      return { ok: true, value: text.slice(Math.max(0, offset), Math.max(0, offset) + Math.min(length, limits.maxRead)) };
    },
    async grep(pattern, sub = "") {
      if (sub && cleanPath(sub) === null) return bad(sub);
      let re: RegExp;
      try {
        re = new RegExp(pattern);
      } catch (err) {
        return { ok: false, error: `invalid pattern: ${String(err)}` };
      }
      const hits: GrepHit[] = [];
      const files = (await listAll(sub)).filter((f) => f.size <= limits.maxGrepFileBytes).slice(0, limits.maxGrepFiles);
      for (const f of files) {
        const obj = await bucket.get(prefix + f.path);
        if (!obj) continue;
        const lines = (await obj.text()).split("\n");
        for (let i = 0; i < lines.length && hits.length < limits.maxGrepHits; i++)
          if (re.test(lines[i]!)) hits.push({ path: f.path, line: i + 1, text: lines[i]!.slice(0, 500) });
        if (hits.length >= limits.maxGrepHits) break;
      }
      return { ok: true, value: hits };
    },
    async write(path, content) {
      const p = cleanPath(path);
      if (p === null) return bad(path);
      if (new TextEncoder().encode(content).length > limits.maxWriteBytes)
        return { ok: false, error: `file too large for the workspace (max ${limits.maxWriteBytes} bytes)` };
      await bucket.put(prefix + p, content);
      return { ok: true, value: undefined };
    },
    async delete(path) {
      const p = cleanPath(path);
      if (p === null) return bad(path);
      await bucket.delete(prefix + p);
      return { ok: true, value: undefined };
    },
  };
}
