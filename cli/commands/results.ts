/**
 * `edgeval results RUN --format ndjson|csv|karenina -o FILE`. ndjson is the results list
 * (GET /v1/runs/:id/results, every page, one result per line, traces left out as the list does).
 * csv and karenina are server-side exports (issue 21) that this server does not have yet: the
 * command says so and exits 2 rather than writing something that only looks like them.
 */
import type { EdgevalClient } from "../../src/client/index.ts";
import { CliError, type Out, writeOutput } from "../io.ts";

export const FORMATS = ["ndjson", "csv", "karenina"] as const;
export type Format = (typeof FORMATS)[number];

export async function resultsCommand(client: EdgevalClient, runId: string, opts: { format: Format; output: string }, out: Out): Promise<number> {
  if (opts.format !== "ndjson") {
    throw new CliError(
      `--format ${opts.format} needs the server's results export (issue 21), which edgeval has no route for yet; nothing was written. Use --format ndjson (the results list, one result per line) for now.`,
    );
  }
  let n = 0;
  await writeOutput(opts.output, async (emit) => {
    for await (const r of client.results.iterate(runId, { limit: 500 })) {
      emit(`${JSON.stringify(r)}\n`);
      n++;
    }
  });
  out.err(`${n} results of run ${runId} written to ${opts.output === "-" ? "stdout" : opts.output} (ndjson)`);
  return 0;
}
