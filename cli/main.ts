/**
 * The `edgeval` CLI on commander (the most used Node CLI library: subcommands, options read from
 * the environment, generated help, no dependencies). Exit codes: 0 ok, 1 a CI gate (or the judge)
 * failed, 2 a usage or server error (the message says what to do), 3 the judge itself failed.
 */
import fs from "node:fs";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { createClient, EdgevalApiError } from "../src/client/index.ts";
import { cancelCommand, importCommand, judgeCommand, keysCommand } from "./commands/misc.ts";
import { judgesCommand } from "./commands/judges.ts";
import { FORMATS, type Format, resultsCommand } from "./commands/results.ts";
import { rescoreCommand } from "./commands/rescore.ts";
import { DEFAULT_LIMIT, type RunsOptions, runsCommand } from "./commands/runs.ts";
import { checkFollowOptions, followRun, runCommand } from "./commands/run.ts";
import { CliError, type Out, stdio } from "./io.ts";

const DEFAULT_URL = "http://127.0.0.1:8787";

/** A pass rate, as the server reports it (0 to 1): 90 meant as 90 % would be a gate nothing passes. */
const rate = (flag: string) => (v: string) => {
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError(`${flag} takes a pass rate from 0 to 1, e.g. 0.9 for 90 % (got ${JSON.stringify(v)})`);
  return n;
};

/** An amount of money: a cap of 0 (or a typo) would stop the run before its first job. */
const usd = (flag: string) => (v: string) => {
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${flag} takes an amount in USD above 0, e.g. 2.50 (got ${JSON.stringify(v)})`);
  return n;
};

/** Node fires a timer of more than 2^31 - 1 ms at once (with a warning): a longer --timeout would end the wait immediately. */
const MAX_TIMEOUT_S = Math.floor(2_147_483_647 / 1000);
const seconds = (flag: string) => (v: string) => {
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n) || n < 1 || n > MAX_TIMEOUT_S) throw new InvalidArgumentError(`${flag} takes a number from 1 to ${MAX_TIMEOUT_S} (24 days) (got ${JSON.stringify(v)})`);
  return n;
};

const number =
  (flag: string, min: number, integer = false, max = Number.POSITIVE_INFINITY) =>
  (v: string) => {
    const n = Number(v);
    const kind = integer ? "a whole number" : "a number";
    if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n)))
      throw new InvalidArgumentError(`${flag} takes ${kind} ${max === Number.POSITIVE_INFINITY ? `≥ ${min}` : `from ${min} to ${max}`} (got ${JSON.stringify(v)})`);
    return n;
  };

/** A poll interval is a timer too: above 2^31 - 1 ms Node fires it at once, and the poll would spin. */
const MAX_POLL_MS = 2_147_483_647;

/** edgeval's version, as package.json (and the server's /openapi.json info.version) says it. */
const VERSION = (JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;

/** The options of every command that follows a run to its end (run, rescore, watch): the gates, the wait, the output. */
function followOptions(cmd: Command): Command {
  return cmd
    .option("--fail-under <rate>", "exit 1 if any (answering, parsing) pair's pass rate (0 to 1) is below this, or has none", rate("--fail-under"))
    .option("--max-errors <n>", "exit 1 if more results than this errored (judge or transport failures)", number("--max-errors", 0, true), 0)
    .option("--timeout <seconds>", "give up after this long, a submit included (the run goes on on the server)", seconds("--timeout"), 3600)
    .option("--poll-ms <ms>", "poll interval where the server has no event stream", number("--poll-ms", 100, true, MAX_POLL_MS), 1000)
    .option("--save-results <file>", "write every result (ndjson) there once the run ends, gates or not")
    .option("--json", "print the end as one JSON document on stdout (status, cost, every pair, the gates and what failed them) instead of the table");
}

function program(out: Out, exit: { code: number }): Command {
  const cli = new Command("edgeval")
    .description("Grade LLM answers with an edgeval server: runs, results, judges, stored judges, keys")
    .addOption(new Option("--url <url>", "the edgeval server").env("EDGEVAL_URL").default(DEFAULT_URL))
    .addOption(new Option("--token <token>", "an API key, or the deployment's EDGEVAL_API_TOKEN value; locally edgeval-local-dev-token").env("EDGEVAL_TOKEN"))
    .version(VERSION, "-V, --version", "print edgeval's version")
    .showHelpAfterError()
    .exitOverride();

  const client = (cmd: Command) => {
    const { url, token } = cmd.optsWithGlobals<{ url: string; token?: string }>();
    if (!token) throw new CliError("no token: pass --token TOKEN or set EDGEVAL_TOKEN (under npm run dev it is edgeval-local-dev-token, from .dev.vars)");
    return createClient({ url, token });
  };
  const act = (fn: (...a: any[]) => Promise<number>) => async (...a: any[]) => void (exit.code = await fn(...a));

  const runCmd = cli
    .command("run [benchmark]")
    .description("submit a benchmark (benchmark.json, a Karenina checkpoint.jsonld, or --benchmark-id), show progress and the summary; gates for CI")
    .option("--config <file>", "the run's VerificationConfig (JSON or YAML)")
    .option("--preset <id>", "a stored preset (POST /v1/presets) instead of --config; with both, --config overrides the preset's top-level keys")
    .option("--benchmark-id <id>", "a stored benchmark (POST /v1/benchmarks, edgeval import) instead of a file")
    .option("--budget-usd <usd>", "stop starting jobs once the run's cost reaches this (it ends budget_exceeded, exit 1); every model needs a price", usd("--budget-usd"))
    .option("--prices <file>", 'per-model prices over the server\'s table (JSON or YAML): {"MODEL": {"input_per_mtok": N, "output_per_mtok": N}}')
    .option("--name <name>", "the run's name (default: the file's name)")
    .option("--idempotency-key <key>", "re-sending the same run with the same key returns the first run");
  followOptions(runCmd).action(act((file: string | undefined, opts, cmd: Command) => runCommand(client(cmd), file, opts, out)));

  const rescoreCmd = cli
    .command("rescore <run>")
    .description("re-score a finished run with new judges, answering models, replicates or rubric traits, reusing its answers; then as run: progress, summary, gates")
    .option("--add <file>", "what to add (JSON or YAML): {parsing_models?, answering_models?, replicate_count?, rubric?}")
    .option("--replicates <n>", "the child's replicate count (at least the run's)", number("--replicates", 1, true))
    .option("--name <name>", "the child run's name");
  followOptions(rescoreCmd).action(act((run: string, opts, cmd: Command) => rescoreCommand(client(cmd), run, opts, out)));

  const watchCmd = cli
    .command("watch <run>")
    .description("follow a run already submitted (after a --timeout, Ctrl-C, or from another CI step), as run follows one: progress, summary, gates");
  followOptions(watchCmd).action(act((run: string, opts, cmd: Command) => (checkFollowOptions(opts), followRun(client(cmd), run, opts, out))));

  cli
    .command("results <run>")
    .description("write a run's results to a file: the server's export (Karenina's results JSON, Karenina's CSV or NDJSON)")
    .addOption(new Option("--format <format>", "ndjson, csv or karenina").choices([...FORMATS]).default("ndjson"))
    .requiredOption("-o, --output <file>", 'where to write ("-" for stdout)')
    .option("--answering-model <id>", "only this answering model's results")
    .option("--parsing-model <id>", "only this parsing (judge) model's results")
    .option("--question-id <id>", "only this question's results")
    .addOption(new Option("--verdict <verdict>", "only results with this verdict").choices(["pass", "fail", "error", "no_verdict"]))
    .option("--failure-group <group>", "only results failing in this group (as GET /v1/runs/:id/results?failure_group=)")
    .action(act((run: string, opts: { format: Format; output: string }, cmd: Command) => resultsCommand(client(cmd), run, opts, out)));

  cli
    .command("import <checkpoint>")
    .description("store a Karenina JSON-LD checkpoint as a benchmark")
    .action(act((file: string, _o, cmd: Command) => importCommand(client(cmd), file, out)));

  cli
    .command("judge")
    .description("grade one output with a compound judge (exit 0 pass, 1 fail, 3 the judge failed)")
    .requiredOption("--config <file>", "the judge config (JSON or YAML)")
    .requiredOption("--output <text>", "the output to grade, or @file")
    .option("--reference <text>", "the reference answer, or @file")
    .option("--input <text>", "the input (question), or @file")
    .action(act((opts, cmd: Command) => judgeCommand(client(cmd), opts, out)));

  cli
    .command("judges <action> [id]")
    .description("stored judges for promptfoo: list | store --config F | replace ID --config F | delete ID | token ID [--name N] [--expires-at T] | tokens ID | revoke ID --token-id T")
    .option("--config <file>", "the stored judge: {name, config, mapping?, deadline_ms?} (JSON or YAML)")
    .option("--name <name>", "the token's name")
    .option("--token-id <id>", "the token to revoke")
    .option("--expires-at <time>", "when the minted token stops grading (ISO 8601; default: never)")
    .action(act((action: string, id: string | undefined, opts, cmd: Command) => judgesCommand(client(cmd), action, { ...opts, id }, out)));

  cli
    .command("runs")
    .description("list the tenant's runs, newest first: id, status, created, results, name")
    .option("--status <list>", "only runs in these statuses, comma-separated (e.g. queued,running: the runs still going)")
    .option("--benchmark <name>", "only runs of this benchmark (its name, as listed)")
    .option("--limit <n>", "how many of the newest to list", number("--limit", 1, true, 500), DEFAULT_LIMIT)
    .option("--all", "every run, page by page")
    .option("--json", "a JSON array of the runs on stdout")
    .action(act((opts: RunsOptions, cmd: Command) => runsCommand(client(cmd), opts, out)));

  cli
    .command("cancel <run>")
    .description("stop a run: no further model call starts")
    .action(act((run: string, _o, cmd: Command) => cancelCommand(client(cmd), run, out)));

  cli
    .command("keys <action> [id]")
    .description("the tenant's API keys: list | create --name N --scopes a,b | rotate ID | revoke ID")
    .option("--name <name>")
    .option("--scopes <list>", "comma-separated, e.g. runs:write,runs:read")
    .option("--expires-at <time>", "ISO 8601; without it, create: no expiry (at most the calling key's), rotate: the old key's lifetime")
    .action(act((action: string, id: string | undefined, opts, cmd: Command) => keysCommand(client(cmd), action, { ...opts, id }, out)));

  return cli;
}

/** Runs the CLI on `argv` (process.argv shape) and resolves with the exit code. */
export async function main(argv: string[], out: Out = stdio()): Promise<number> {
  const exit = { code: 0 };
  try {
    await program(out, exit).parseAsync(argv);
    return exit.code;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2; // help, version, or a usage error already printed
    if (err instanceof CliError) {
      out.err(`edgeval: ${err.message}`);
      return err.exitCode;
    }
    if (err instanceof EdgevalApiError) {
      out.err(`edgeval: ${err.message}`);
      if (err.status === 401) out.err("edgeval: the server refused the token: check --token / EDGEVAL_TOKEN (a key from POST /v1/keys, or the value of the deployment's EDGEVAL_API_TOKEN)");
      if (err.requestId) out.err(`edgeval: request_id ${err.requestId}`);
      return 2;
    }
    out.err(`edgeval: ${(err as Error).message ?? err}`);
    return 2;
  }
}
