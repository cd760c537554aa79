/**
 * Issue 24, Done when: against `npm run dev` (on free ports), the `npx edgeval run` line it prints
 * grades examples/basic with progress and the summary, exits 0 with --fail-under 0.25
 * --max-errors 2 and 1 with --fail-under 0.3 (beta passes 6/22 = 27.3 %, with 2 errors); the other
 * commands answer or say clearly what this server lacks; results writes all three export formats; and the stdlib-only Python example
 * (examples/python/) submits, waits and exports with the machine's python3.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevServer, ROOT, startDev } from "./dev-server";

interface Exit {
  code: number;
  stdout: string;
  stderr: string;
}

function sh(line: string, env: Record<string, string> = {}, timeout = 120_000): Promise<Exit> {
  return new Promise((resolve) => {
    execFile("bash", ["-c", line], { cwd: ROOT, env: { ...process.env, ...env }, timeout }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 99) : 0, stdout, stderr }),
    );
  });
}

describe("the edgeval CLI and the Python example against npm run dev", () => {
  let dev: DevServer;
  let runLine: string;
  let runId = "";
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "edgeval-cli-"));
  const auth = () => ({ EDGEVAL_URL: dev.url, EDGEVAL_TOKEN: "edgeval-local-dev-token" });

  beforeAll(async () => {
    dev = await startDev();
    runLine = /^ {2}(npx edgeval run .*)$/m.exec(dev.printed)![1]!;
  }, 60_000);
  afterAll(async () => {
    await dev?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("prints an npx edgeval run line for the fake's real port", () => {
    expect(runLine).toContain(`--url ${dev.url}`);
    expect(runLine).toContain("--fail-under 0.25 --max-errors 2");
    const config = /--config (\S+)/.exec(runLine)![1]!;
    expect(fs.readFileSync(path.join(ROOT, config), "utf8")).toContain(`http://127.0.0.1:${dev.fakePort}/v1`);
  });

  it("run, as printed: progress lines, the summary table, exit 0 with --fail-under 0.25 --max-errors 2", async () => {
    const r = await sh(runLine);
    expect(r.code, r.stderr).toBe(0);
    runId = /^run (\S+) submitted/m.exec(r.stderr)![1]!;
    // Not a TTY: plain progress lines, the last at 48/48.
    expect(r.stderr).toMatch(/^progress \d+\/48 results/m);
    expect(r.stderr).toMatch(/^progress 48\/48 results \(100 %\)/m);
    expect(r.stderr).not.toContain("\r");
    expect(r.stdout).toMatch(/completed, 48\/48 results/);
    expect(r.stdout).toMatch(/^alpha\s+judge\s+24\s+22\s+2\s+0\s+91\.7 %$/m);
    expect(r.stdout).toMatch(/^beta\s+judge\s+24\s+6\s+16\s+2\s+27\.3 %$/m);
    expect(r.stderr).toContain("ok: every gate passed (--fail-under 0.25, --max-errors 2)");
  });

  it("run exits 1 with --fail-under 0.3, naming the pair under it (and still saves the results)", async () => {
    const saved = path.join(tmp, "saved.ndjson");
    const r = await sh(`${runLine.replace("--fail-under 0.25", "--fail-under 0.3")} --save-results ${saved}`);
    expect(r.code, r.stderr).toBe(1);
    expect(fs.readFileSync(saved, "utf8").trim().split("\n")).toHaveLength(48);
    expect(r.stderr).toContain("FAIL beta / judge: pass rate 27.3 % is below --fail-under 0.3 (6/22)");
    expect(r.stderr).not.toContain("FAIL alpha");
  });

  it("run exits 1 when errors pass --max-errors (default 0)", async () => {
    const r = await sh(runLine.replace(" --fail-under 0.25 --max-errors 2", ""));
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain("FAIL 2 errored result(s) (a judge or transport failure), more than --max-errors 0");
  });

  it("results writes the server's exports: ndjson and csv streamed, karenina built then downloaded", async () => {
    const out = path.join(tmp, "r.ndjson");
    const r = await sh(`npx edgeval results ${runId} --format ndjson -o ${out}`, auth());
    expect(r.code, r.stderr).toBe(0);
    const lines = fs.readFileSync(out, "utf8").trim().split("\n");
    expect(lines).toHaveLength(48);
    expect(JSON.parse(lines[0]!).metadata.run_name).toBeDefined();
    const csv = path.join(tmp, "r.csv");
    const c = await sh(`npx edgeval results ${runId} --format csv --verdict pass -o ${csv}`, auth());
    expect(c.code, c.stderr).toBe(0);
    expect(fs.readFileSync(csv, "utf8").split("\n")[0]).toMatch(/^question_id,success,error,question_text,/);
    const karenina = path.join(tmp, "r.json");
    const k = await sh(`npx edgeval results ${runId} --format karenina -o ${karenina}`, auth());
    expect(k.code, k.stderr).toBe(0);
    const doc = JSON.parse(fs.readFileSync(karenina, "utf8"));
    expect(doc.format_version).toBe("2.2");
    expect(doc.results).toHaveLength(48);
  });

  it("import stores a Karenina checkpoint; run takes a checkpoint too, importing it first", async () => {
    const checkpoint = "test/fixtures/karenina/checkpoint_minimal.jsonld";
    const i = await sh(`npx edgeval import ${checkpoint}`, auth());
    expect(i.code, i.stderr).toBe(0);
    expect(i.stdout).toMatch(/^benchmark \S+: 1 questions imported from /m);
    const config = /--config (\S+)/.exec(runLine)![1]!;
    const r = await sh(`npx edgeval run ${checkpoint} --config ${config} --max-errors 100`, auth());
    expect(r.stderr).toMatch(/^imported \S+ as benchmark \S+ \(1 questions/m);
    expect(r.stdout).toMatch(/: completed, 4\/4 results/);
    expect(r.code, r.stderr).toBe(0);
  });

  it("runs lists the run just made, filters by status, and refuses a status that does not exist", async () => {
    const all = await sh("npx edgeval runs", auth());
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toMatch(new RegExp(`^${runId}  completed\\s+\\S+\\s+48 results  `, "m"));
    const going = await sh("npx edgeval runs --status queued,running --json", auth());
    expect(going.code, going.stderr).toBe(0);
    expect((JSON.parse(going.stdout) as { run_id: string }[]).map((r) => r.run_id)).not.toContain(runId);
    const typo = await sh("npx edgeval runs --status runing", auth());
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('query status[0]: expected one of "queued", "running"');
  });

  it("cancel of a finished run says how it ended; a bad token and a missing token say what to do", async () => {
    const c = await sh(`npx edgeval cancel ${runId}`, auth());
    expect(c.code).toBe(2);
    expect(c.stderr).toContain("409 run_finished");
    expect(c.stderr).toContain(`run ${runId} already ended completed`);
    const bad = await sh(`npx edgeval keys list --token wrong`, { EDGEVAL_URL: dev.url });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("401 unauthorized");
    expect(bad.stderr).toContain("check --token / EDGEVAL_TOKEN");
    const none = await sh(`npx edgeval keys list`, { EDGEVAL_URL: dev.url, EDGEVAL_TOKEN: "" });
    expect(none.stderr).toContain("no token: pass --token TOKEN or set EDGEVAL_TOKEN");
  });

  it("keys create, list and revoke; judge reports a refused config at its path", async () => {
    const created = await sh(`npx edgeval keys create --name cli-test --scopes runs:read`, auth());
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout.trim()).toMatch(/^ev_[0-9a-f]{12}_/);
    const keyId = /^key (\S+) \(runs:read\)/m.exec(created.stderr)![1]!;
    expect((await sh(`npx edgeval keys list`, auth())).stdout).toContain(`${keyId}  cli-test  runs:read  active`);
    expect((await sh(`npx edgeval keys revoke ${keyId}`, auth())).stdout).toContain(`key ${keyId} revoked at`);
    const judgeFile = path.join(tmp, "judge.yaml");
    fs.writeFileSync(judgeFile, "type: likert\nscael: [1, 5]\n");
    const j = await sh(`npx edgeval judge --config ${judgeFile} --output "BCL-2"`, auth());
    expect(j.code).toBe(2);
    expect(j.stderr).toContain("400 invalid_body");
    expect(j.stderr).toContain("config.scael");
  });

  it("the Python example (standard library only) submits, waits and exports with python3", async () => {
    const config = /--config (\S+)/.exec(runLine)![1]!;
    const out = path.join(tmp, "py.ndjson");
    const r = await sh(
      `python3 examples/python/edgeval_example.py run examples/basic/benchmark.json --config ${config} --out ${out} --poll 0.5`,
      auth(),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^run \S+$/m);
    expect(r.stderr).toContain("completed: 48/48 results");
    expect(r.stdout).toMatch(/^beta\s+judge\s+passed {3}6 {2}failed {2}16 {2}errored {3}2 {2}pass rate 27\.3 %$/m);
    expect(r.stdout).toContain(`completed: 48 results written to ${out}`);
    expect(fs.readFileSync(out, "utf8").trim().split("\n")).toHaveLength(48);
    // Standard library only: every import is one of python3's own modules.
    const imports = await sh(
      `python3 -c "import ast, sys; t = ast.parse(open('examples/python/edgeval_example.py').read()); names = {a.name.split('.')[0] for n in ast.walk(t) if isinstance(n, ast.Import) for a in n.names} | {n.module.split('.')[0] for n in ast.walk(t) if isinstance(n, ast.ImportFrom)}; print(sorted(names - set(sys.stdlib_module_names)), len(names))"`,
    );
    expect(imports.stdout.trim()).toMatch(/^\[\] [5-9]$/);
    const refused = await sh(
      `python3 examples/python/edgeval_example.py --token wrong run examples/basic/benchmark.json --config ${config}`,
      { EDGEVAL_URL: dev.url },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("401 unauthorized");
  });
});
