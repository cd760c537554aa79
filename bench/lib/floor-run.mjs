// One run graded by bench/floor/index.js: bench/throughput's body POSTed to the floor worker, then
// its tally polled every 500 ms (as bench/throughput polls edgeval's status, so both pay for the
// polls) until every result is in. bench/floor.mjs and bench/floor-perf.mjs both grade this way.
import { buildRun } from "./throughput-run.mjs";

/**
 * Resolves with the run's id once its tally counts `jobs` results; throws after 600 s.
 * @param {string} base the floor worker's URL
 * @param {string} fakeUrl the fake LLM's URL
 * @param {number} jobs
 * @param {() => string} [log] the stack's log, quoted when the run does not finish
 */
export async function gradeOnFloor(base, fakeUrl, jobs, log = () => "") {
  const t0 = Date.now();
  const res = await fetch(`${base}/runs`, { method: "POST", body: JSON.stringify(buildRun(jobs, `${fakeUrl}/v1`)) });
  if (res.status !== 202) throw new Error(`floor POST /runs: HTTP ${res.status} ${await res.text()}`);
  const { run_id } = await res.json();
  for (;;) {
    const st = await (await fetch(`${base}/runs/${run_id}`)).json();
    if (st.done >= jobs) return run_id;
    if (Date.now() - t0 > 600_000) throw new Error(`the floor run did not finish in 600 s (${st.done}/${jobs}):\n${log().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
