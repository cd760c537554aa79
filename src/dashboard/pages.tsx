/**
 * The dashboard's pages as hono/jsx components: server-rendered HTML, escaped by JSX, no inline
 * script or style (the CSP forbids both). Each page is a function of the data the route loaded.
 */
import type { ResultFilter, ResultListRow } from "../storage/results-repo";
import type { RunRecord } from "../storage/runs-repo";
import type { RunStatusView } from "../schemas/run-views";
import { DASHBOARD } from "./guard";
import { Layout } from "./layout";
import { ColumnHeads } from "./ui";
import { type HeatCell, Heatmap, PassRateChart } from "./charts";
import {
  FailureReason,
  FieldVerdicts,
  type GraphUnit,
  HighlightedAnswer,
  JudgeGraphSvg,
  RubricScores,
  resultVerdict,
  VerdictLine,
} from "./result-view";
import { FAILURE_GROUPS, type FailureGroup, type VerificationResultInput } from "../schemas/result";
import { CompareForm, ExportButtons, Lineage } from "./run-tools";
import type { ExportRecord } from "../exports/exports-repo";
import { ExportsTable } from "./export-list";
import { RescoreForm } from "./rescore-form";
import { RunEnding } from "./run-ending";
import type { RunSpec } from "../storage/run-spec";

const VERDICTS = ["pass", "fail", "error", "no_verdict"] as const;

/** The failure groups in words (src/pipeline/failure.ts sorts each failure category into one). */
const FAILURE_GROUP_WORDS: Record<FailureGroup, string> = {
  content: "content: the answer was wrong",
  autofail: "autofail: a check failed it outright",
  retry: "retry: a model call timed out or was refused",
  abstained: "abstained: no (sufficient) answer",
  system: "system: the judge's output or the template failed",
};
export const isTerminal = (status: string) => status !== "queued" && status !== "running";

export function SignInPage(props: { error?: string }) {
  return (
    <Layout title="Sign in">
      {props.error && (
        <p class="error" role="alert">
          {props.error}
        </p>
      )}
      <form method="post" action={`${DASHBOARD}/sign-in`}>
        <label for="key">API key</label>{" "}
        <input id="key" name="key" type="password" autocomplete="off" required size={50} />{" "}
        <button type="submit">Sign in</button>
      </form>
      <p>The key is checked once and never stored in the browser: the session cookie names only its id.</p>
    </Layout>
  );
}

export function ErrorPage(props: { tenant: string; title: string; message: string; way?: { href: string; text: string } }) {
  return (
    <Layout title={props.title} signedIn={{ tenant: props.tenant }}>
      <p class="error" role="alert">
        {props.message}
      </p>
      {props.way && (
        <p>
          <a href={props.way.href}>{props.way.text}</a>
        </p>
      )}
    </Layout>
  );
}

export function RunPage(props: {
  tenant: string;
  view: RunStatusView;
  heat: { cells: HeatCell[]; truncated: boolean };
  /** The key has runs:write: Cancel (while the run goes) and the Export buttons. */
  canWrite: boolean;
  /** The tenant's other recent runs, to compare this one with. */
  others: readonly RunRecord[];
  /** The run's re-score parent has been deleted: named, not linked. */
  parentGone?: boolean;
  /** A finished run's Re-score form (a key with runs:write): the run's judges and replicates, its scenarios. */
  rescore?: {
    spec: Pick<RunSpec, "answering_models" | "parsing_models" | "replicate_count">;
    scenarios: readonly string[];
    recorded: { stored: number; expected: number };
  } | null;
  /** The run's newest exports, and whether it has more (listed on its exports page). */
  exports?: { rows: readonly ExportRecord[]; more: boolean };
}) {
  const v = props.view;
  const terminal = isTerminal(v.status);
  return (
    <Layout title={`Run ${v.run_name ?? v.run_id}`} signedIn={{ tenant: props.tenant }}>
      <p>
        Benchmark {v.benchmark_name}; created {v.created_at}.
      </p>
      <Lineage lineage={v.lineage} parentGone={props.parentGone ?? false} />
      <section
        id="progress"
        aria-labelledby="progress-heading"
        data-events-url={`${DASHBOARD}/runs/${v.run_id}/events`}
        data-status={v.status}
        data-terminal={String(terminal)}
      >
        <h2 id="progress-heading">Progress</h2>
        <p>
          Status: <strong id="run-status" aria-live="polite">{v.status}</strong>
        </p>
        {terminal && <RunEnding view={v} />}
        <progress max={Math.max(v.progress.total, 1)} value={v.progress.done} aria-labelledby="progress-text" />{" "}
        <span id="progress-text" aria-live="polite">
          {v.progress.done} of {v.progress.total} results recorded
        </span>
        <dl class="figures">
          <dt>Cost so far</dt>
          <dd id="progress-cost">{v.usage.total.cost_usd === null ? "not priced" : `$${v.usage.total.cost_usd.toFixed(4)}`}</dd>
          {v.budget_usd !== null && (
            // The cap the cost above runs against (budget_usd, or what the tenant's monthly spend quota left): no job starts past it.
            <>
              <dt>Budget</dt>
              <dd id="progress-budget">${v.budget_usd.toFixed(4)} (no job starts once the cost reaches it)</dd>
            </>
          )}
          <dt>Time left</dt>
          <dd id="progress-eta">{terminal ? "none left" : "not known yet"}</dd>
        </dl>
        {!terminal && (
          // Shown by progress.js when the run ends: the page is not reloaded under the reader, so its
          // pass rates, heatmap, exports and re-score form stay as drawn until they ask for the new ones.
          <p id="run-ended" role="status" hidden>
            The run has ended. <a href={`${DASHBOARD}/runs/${v.run_id}`}>Reload the page</a> for its final pass rates, heatmap, exports
            and re-score.
          </p>
        )}
        {props.canWrite && !terminal && (
          <form id="cancel-form" method="post" action={`${DASHBOARD}/runs/${v.run_id}/cancel`}>
            <button type="submit">Cancel run</button>{" "}
            <span>Calls in flight finish and are recorded; jobs not yet started are skipped.</span>
          </form>
        )}
      </section>
      <h2>Pass rate per model pair</h2>
      {v.summary.length > 0 && <PassRateChart pairs={v.summary} />}
      <table>
        <caption>The chart's figures{v.summary_total > v.summary.length ? `: the first ${v.summary.length} of ${v.summary_total} pairs` : ""}</caption>
        <ColumnHeads names={["Answering", "Parsing", "Pass rate", "Passed", "Failed", "Errored", "Total"]} />
        <tbody>
          {v.summary.map((p) => (
            <tr>
              <td>{p.answering_model}</td>
              <td>{p.parsing_model}</td>
              <td>{p.pass_rate === null ? "—" : `${(p.pass_rate * 100).toFixed(1)} %`}</td>
              <td>{p.passed}</td>
              <td>{p.failed}</td>
              <td>{p.errored}</td>
              <td>{p.total}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Questions × answering models</h2>
      {props.heat.cells.length === 0 ? (
        <p>{terminal ? `No results were recorded (the run ended ${v.status}).` : "No results yet (reload to see them as they arrive)."}</p>
      ) : (
        <Heatmap cells={props.heat.cells} truncated={props.heat.truncated} />
      )}
      <p>
        <a href={`${DASHBOARD}/runs/${v.run_id}/results`}>Results</a>
      </p>
      <h2>Compare</h2>
      <CompareForm runId={v.run_id} others={props.others} preferred={v.lineage.parent_run_id} />
      {props.canWrite && (
        <>
          <h2>Export</h2>
          {terminal ? (
            <>
              <p>Every result, traces included, built into a file you can download (a large run takes a while).</p>
              <ExportButtons runId={v.run_id} />
            </>
          ) : (
            // The export would be a subset of results still landing (POST …/exports answers 409 run_active).
            <p id="export-later">Export is available once the run has finished (reload the page then).</p>
          )}
        </>
      )}
      <RunExports run={v} exports={props.exports ?? { rows: [], more: false }} />
      {props.rescore && (
        <>
          <h2>Re-score</h2>
          <RescoreForm runId={v.run_id} spec={props.rescore.spec} scenarios={props.rescore.scenarios} recorded={props.rescore.recorded} />
        </>
      )}
      <script src={`${DASHBOARD}/assets/progress.js`} defer />
    </Layout>
  );
}

/** The run's exports (any key that reads the run sees them): the newest, and a link to them all. */
function RunExports(props: { run: { run_id: string; run_name: string | null }; exports: { rows: readonly ExportRecord[]; more: boolean } }) {
  const { rows, more } = props.exports;
  if (rows.length === 0) return null;
  return (
    <section aria-labelledby="exports-heading">
      <h2 id="exports-heading">Exports of this run</h2>
      <ExportsTable run={props.run} exports={rows} caption={more ? `The newest ${rows.length}` : "Newest first"} />
      {more && (
        <p>
          <a href={`${DASHBOARD}/runs/${props.run.run_id}/exports`}>All exports of this run</a>
        </p>
      )}
    </section>
  );
}

export function ResultsPage(props: {
  tenant: string;
  runId: string;
  /** The run's name, for the title (its id where it has none). */
  runName?: string | null;
  filter: ResultFilter;
  /** The filter's failure group (the storage filter holds its categories instead). */
  failureGroup?: FailureGroup;
  rows: ResultListRow[];
  next: string | null;
  /** This page's `after` (null: the first page), carried to each result so its way back returns here. */
  after?: string | null;
  /** The key may export and the run has ended: the page offers its filtered results as an export. */
  canExport?: boolean;
}) {
  const base = `${DASHBOARD}/runs/${props.runId}/results`;
  const keep = new URLSearchParams([
    ...Object.entries(props.filter).filter((e): e is [string, string] => typeof e[1] === "string" && e[1] !== ""),
    ...(props.failureGroup ? [["failure_group", props.failureGroup]] : []),
  ]);
  const here = new URLSearchParams([...keep, ...(props.after ? [["after", props.after]] : [])]).toString();
  return (
    <Layout title={`Results of ${props.runName ?? props.runId}`} signedIn={{ tenant: props.tenant }}>
      <p>
        <a href={`${DASHBOARD}/runs/${props.runId}`}>Back to the run</a>
      </p>
      <form method="get" action={base} aria-label="Filter results">
        <label for="verdict">Verdict</label>{" "}
        <select id="verdict" name="verdict">
          <option value="">any</option>
          {VERDICTS.map((v) => (
            <option value={v} selected={props.filter.verdict === v}>
              {v}
            </option>
          ))}
        </select>{" "}
        <label for="answering_model">Answering model</label>{" "}
        <input id="answering_model" name="answering_model" value={props.filter.answering_model ?? ""} />{" "}
        <label for="parsing_model">Parsing model</label> <input id="parsing_model" name="parsing_model" value={props.filter.parsing_model ?? ""} />{" "}
        <label for="question_id">Question id</label> <input id="question_id" name="question_id" value={props.filter.question_id ?? ""} />{" "}
        <label for="failure_group">Failure group</label>{" "}
        <select id="failure_group" name="failure_group">
          <option value="">any</option>
          {FAILURE_GROUPS.map((g) => (
            <option value={g} selected={props.failureGroup === g}>
              {FAILURE_GROUP_WORDS[g]}
            </option>
          ))}
        </select>{" "}
        <button type="submit">Filter</button>
      </form>
      <table>
        <caption>
          {props.rows.length} {props.rows.length === 1 ? "result" : "results"} on this page
        </caption>
        <ColumnHeads names={["Question", "Answering", "Parsing", "Replicate", "Verdict", "Failure"]} />
        <tbody>
          {props.rows.map((r) => (
            <tr>
              <td>
                <a href={`${base}/${r.result_id}${here ? `?${here}` : ""}`}>{r.question_id}</a>
              </td>
              <td>{r.answering_model}</td>
              <td>{r.parsing_model}</td>
              <td>{r.replicate}</td>
              <td class={`verdict-${r.verdict}`}>{r.verdict}</td>
              <td>{r.failure_category ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.next && <a href={`${base}?${new URLSearchParams([...keep, ["after", props.next]])}`}>Next page</a>}
      {props.canExport && (
        <section aria-labelledby="export-these-heading">
          <h2 id="export-these-heading">Export these results</h2>
          <p>{keep.size ? "Every result this filter shows (all pages), traces included." : "Every result of the run, traces included."}</p>
          <ExportButtons runId={props.runId} filter={Object.fromEntries(keep)} id="export-these" />
        </section>
      )}
    </Layout>
  );
}

interface TraceMessage {
  role: string;
  content: string;
  tool_calls?: unknown[];
}

export function ResultPage(props: {
  tenant: string;
  runId: string;
  resultId: string;
  result: VerificationResultInput;
  /** The results list the user came from (its filters and page), as a query string; "" for the unfiltered first page. */
  listQuery?: string;
}) {
  const r = props.result;
  const template = r.template ?? null;
  const metadata = r.metadata;
  const { template: _t, ...rest } = r;
  const trace: TraceMessage[] = template?.trace_messages ?? [];
  const excerpts = { ...(r.deep_judgment?.extracted_excerpts ?? {}), ...(r.deep_judgment_rubric?.extracted_rubric_excerpts ?? {}) };
  const verdict = resultVerdict(r);
  const graphs = Object.entries(r.rubric?.compound_trait_traces ?? {}) as [string, { units?: GraphUnit[]; pass?: boolean | null; score?: number | null }][];
  return (
    <Layout title={`Result ${metadata.question_id ?? props.resultId}`} signedIn={{ tenant: props.tenant }}>
      <p>
        <a href={`${DASHBOARD}/runs/${props.runId}/results${props.listQuery ? `?${props.listQuery}` : ""}`}>Back to the results</a>
      </p>
      <VerdictLine verdict={verdict} />
      {metadata.failure ? (
        <section aria-labelledby="failure-heading">
          <h2 id="failure-heading">{verdict === "error" ? "Why grading failed" : "Why the answer failed"}</h2>
          {/* The graded answer's failure: data about the answer, not an error of this page. */}
          <FailureReason failure={metadata.failure} />
          <details>
            <summary>The failure as recorded</summary>
            <pre id="failure" class="failure">{JSON.stringify(metadata.failure, null, 2)}</pre>
          </details>
        </section>
      ) : null}
      <h2>Answer</h2>
      {template ? <HighlightedAnswer answer={template.raw_llm_response} excerpts={excerpts} /> : <pre id="answer">(no answer recorded)</pre>}
      {template && (
        <>
          <h2>Field-level verdicts</h2>
          <FieldVerdicts template={template} />
        </>
      )}
      {r.rubric && (
        <>
          <h2>Rubric scores</h2>
          <RubricScores rubric={r.rubric} />
        </>
      )}
      {graphs.length > 0 && (
        <>
          <h2>Compound judges</h2>
          {graphs.map(([trait, g]) =>
            g.units?.length ? <JudgeGraphSvg trait={trait} units={g.units} pass={g.pass ?? null} score={g.score ?? null} /> : <p>{trait}: no units were recorded.</p>,
          )}
        </>
      )}
      <h2 id="trace-heading">Trace</h2>
      {trace.length === 0 ? (
        <p>No trace messages were recorded.</p>
      ) : (
        <ol class="trace" aria-labelledby="trace-heading">
          {trace.map((m) => (
            <li>
              <strong>{m.role}</strong>
              <pre>{m.content}</pre>
              {m.tool_calls && <pre>{JSON.stringify(m.tool_calls, null, 2)}</pre>}
            </li>
          ))}
        </ol>
      )}
      <h2>Verdicts and metadata</h2>
      <pre>{JSON.stringify({ ...rest, template: template ? { ...template, trace_messages: undefined, raw_llm_response: undefined } : null }, null, 2)}</pre>
    </Layout>
  );
}
