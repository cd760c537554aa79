/** The dashboard's runs page: the tenant's runs, newest first, filtered as GET /v1/runs filters them. */
import type { RunRecord } from "../storage/runs-repo";
import { RunStatusName } from "../schemas/run-views";
import { DASHBOARD } from "./guard";
import { Layout } from "./layout";
import { ColumnHeads } from "./ui";

/** The runs page's status choices: any, the runs still going, or one status. */
const RUN_STATUS_CHOICES: readonly [value: string, label: string][] = [
  ["", "any"],
  ["queued,running", "still going"],
  ...RunStatusName.options.map((s): [string, string] => [s, s]),
];

export function RunsPage(props: { tenant: string; runs: RunRecord[]; next: string | null; filter: { status?: string; benchmark_name?: string } }) {
  const keep = new URLSearchParams(Object.entries(props.filter).filter((e): e is [string, string] => typeof e[1] === "string" && e[1] !== ""));
  const filtered = keep.size > 0;
  return (
    <Layout title="Runs" signedIn={{ tenant: props.tenant }}>
      <form method="get" action={`${DASHBOARD}/runs`} aria-label="Filter runs">
        <label for="status">Status</label>{" "}
        <select id="status" name="status">
          {RUN_STATUS_CHOICES.map(([value, label]) => (
            <option value={value} selected={(props.filter.status ?? "") === value}>
              {label}
            </option>
          ))}
        </select>{" "}
        <label for="benchmark_name">Benchmark</label> <input id="benchmark_name" name="benchmark_name" value={props.filter.benchmark_name ?? ""} />{" "}
        <button type="submit">Filter</button>
        {filtered && (
          <>
            {" "}
            <a href={`${DASHBOARD}/runs`}>Show every run</a>
          </>
        )}
      </form>
      {props.runs.length === 0 ? (
        <p>{filtered ? "No run matches this filter." : "No runs yet."}</p>
      ) : (
        <table>
          <caption>Newest first</caption>
          <ColumnHeads names={["Run", "Benchmark", "Status", "Created"]} />
          <tbody>
            {props.runs.map((r) => (
              <tr>
                <td>
                  <a href={`${DASHBOARD}/runs/${r.run_id}`}>{r.run_name ?? r.run_id}</a>
                </td>
                <td>
                  <a href={`${DASHBOARD}/runs?${new URLSearchParams({ benchmark_name: r.benchmark_name })}`} title="This benchmark's runs">
                    {r.benchmark_name}
                  </a>
                </td>
                <td>{r.status}</td>
                <td>{r.created_at}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {props.next && <a href={`${DASHBOARD}/runs?${new URLSearchParams([...keep, ["after", props.next]])}`}>Older runs</a>}
    </Layout>
  );
}
