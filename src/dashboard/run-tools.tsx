/**
 * The run page's tools and the pages they lead to: its re-score lineage, comparing the run with another one (the object
 * GET /v1/runs/compare answers, rendered), and exports (built by the same builder as
 * POST /v1/runs/:id/exports, followed on a status page, downloaded with the session cookie).
 */
import { type ExportRecord, exportView } from "../exports/exports-repo";
import type { compareRuns } from "../http/compare";
import { EXPORT_FORMATS } from "../schemas/api";
import type { RunStatusView } from "../schemas/run-views";
import type { RunRecord } from "../storage/runs-repo";
import { DASHBOARD } from "./guard";
import { Layout } from "./layout";
import { ColumnHeads } from "./ui";
import { ExportStatus, exportFile, exportFilterText, FORMAT_NAMES } from "./export-list";

export type Comparison = Awaited<ReturnType<typeof compareRuns>>;

const pct = (rate: number | null) => (rate === null ? "—" : `${(rate * 100).toFixed(1)} %`);
const signedPct = (delta: number | null) => (delta === null ? "—" : `${delta > 0 ? "+" : ""}${(delta * 100).toFixed(1)} points`);
const runLabel = (r: Pick<RunRecord, "run_id" | "run_name" | "created_at">) => `${r.run_name ?? r.run_id} (${r.created_at})`;

/**
 * A re-scored run's parent and a run's re-scored children, linked (src/rescore/); a re-scored run also says what
 * its re-score left out and graded afresh, as its 202 did, since the form that said it is gone by now.
 */
export function Lineage(props: { lineage: RunStatusView["lineage"]; parentGone: boolean }) {
  const { parent_run_id: parent, children } = props.lineage;
  if (!parent && children.length === 0) return null;
  const link = (id: string) => <a href={`${DASHBOARD}/runs/${id}`}>{id}</a>;
  return (
    <>
      <LineageLinks parent={parent} rescoredAs={children} parentGone={props.parentGone} link={link} />
      <RescoreCaveatsNote lineage={props.lineage} />
    </>
  );
}

function LineageLinks(props: { parent: string | null; rescoredAs: string[]; parentGone: boolean; link: (id: string) => unknown }) {
  const { parent, rescoredAs: children, link } = props;
  return (
    <p id="lineage">
      {parent && <>Re-scored from run {props.parentGone ? `${parent} (since deleted)` : link(parent)}. </>}
      {children.length > 0 && (
        <>
          Re-scored as{" "}
          {children.map((id, i) => (
            <>
              {i > 0 ? ", " : ""}
              {link(id)}
            </>
          ))}
          .
        </>
      )}
    </p>
  );
}

/** The re-score's `left_out` and `graded_afresh` (null on runs re-scored before they were recorded: nothing said). */
function RescoreCaveatsNote(props: { lineage: RunStatusView["lineage"] }) {
  const { left_out: leftOut, graded_afresh: afresh } = props.lineage;
  if (!leftOut?.length && !afresh) return null;
  return (
    <ul id="rescore-caveats">
      {(leftOut ?? []).map((l) => (
        <li>
          Left out of this re-score: {l.ids.length} {l.ids.length === 1 ? "scenario" : "scenarios"} ({l.ids.join(", ")}), {l.results} of
          the parent's results not copied. {l.reason}
        </li>
      ))}
      {afresh && (
        <li>
          Graded afresh: {afresh.results} {afresh.results === 1 ? "result" : "results"} the parent never recorded. {afresh.reason}
        </li>
      )}
    </ul>
  );
}

/**
 * On the run page: pick another run of the tenant to compare this one with (this run is B, the pick A).
 * `preferred` (a re-scored run's parent) is picked at first: the comparison a re-score is made for.
 */
export function CompareForm(props: { runId: string; others: readonly RunRecord[]; preferred?: string | null }) {
  if (props.others.length === 0) return <p>No other run to compare with yet.</p>;
  return (
    <form id="compare-form" method="get" action={`${DASHBOARD}/runs/${props.runId}/compare`}>
      <label for="compare-a">Compare with run</label>{" "}
      <select id="compare-a" name="a">
        {props.others.map((r) => (
          <option value={r.run_id} selected={r.run_id === props.preferred}>
            {runLabel(r)}
          </option>
        ))}
      </select>{" "}
      <button type="submit">Compare</button>
    </form>
  );
}

/**
 * For a key with runs:write: one button per format, each a POST through the Origin check; on the run
 * page every result, on the results page the results its filter shows.
 */
export function ExportButtons(props: { runId: string; filter?: Readonly<Record<string, string>>; id?: string }) {
  return (
    <form id={props.id ?? "export-form"} method="post" action={`${DASHBOARD}/runs/${props.runId}/exports`}>
      {/* A filtered list's export: its filter goes with the format (POST …/exports takes both). */}
      {Object.entries(props.filter ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      {EXPORT_FORMATS.map((f) => (
        <>
          <button type="submit" name="format" value={f}>
            Export {FORMAT_NAMES[f]}
          </button>{" "}
        </>
      ))}
    </form>
  );
}

/** "Run A (name) is running and run B (name) is queued", for the runs of a comparison that have not ended; null when both have. */
function stillGoing(runs: { a: RunRecord; b: RunRecord }): string | null {
  const going = (["a", "b"] as const)
    .filter((side) => runs[side].status === "queued" || runs[side].status === "running")
    .map((side) => `run ${side.toUpperCase()} (${runs[side].run_name ?? runs[side].run_id}) is ${runs[side].status}`);
  if (going.length === 0) return null;
  const text = going.join(" and ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A comparison of one of run B's judges with one of run A's: its page's address and the two ids. */
export interface JudgeLink {
  a: string;
  b: string;
  url: string;
}

export function ComparePage(props: {
  tenant: string;
  cmp: Comparison;
  runs: { a: RunRecord; b: RunRecord };
  nextUrl: string | null;
  /** B's judges that A lacks, each offered against A's (a re-score's new judge against the parent's). */
  judgeLinks?: readonly JudgeLink[];
}) {
  const { cmp, runs } = props;
  const going = stillGoing(runs);
  const graded = cmp.model_pairs.reduce((n, p) => n + p.paired, 0);
  return (
    <Layout title={`Run ${runs.b.run_name ?? runs.b.run_id} compared with ${runs.a.run_name ?? runs.a.run_id}`} signedIn={{ tenant: props.tenant }}>
      <p>
        <a href={`${DASHBOARD}/runs/${runs.b.run_id}`}>Back to the run</a>
      </p>
      <p>
        A is <a href={`${DASHBOARD}/runs/${runs.a.run_id}`}>{runLabel(runs.a)}</a>, B is{" "}
        <a href={`${DASHBOARD}/runs/${runs.b.run_id}`}>{runLabel(runs.b)}</a>. Results pair by question, models and replicate; a pair counts
        when both verdicts are pass or fail (an error on either side is excluded, never a flip). The p-value is McNemar's exact two-sided
        test over the flips; significant means p &lt; {cmp.alpha}.
      </p>
      {going && (
        // A comparison of a run still going pairs only what has landed: its figures and p will change.
        <p id="compare-incomplete" class="error" role="status">
          {going}: this compares the results recorded so far, and the figures will change until it ends.
        </p>
      )}
      {cmp.model_pairs.length === 0 ? (
        // Nothing paired is not "nothing changed": other questions, models or replicates.
        <p id="compare-nothing-paired" class="error" role="status">
          No result of run A pairs with one of run B (results pair on question, answering model, parsing model and replicate), so
          nothing is compared. Two different answering models compare with <code>a_model</code> and <code>b_model</code> in this
          page's address.
        </p>
      ) : (
        <PairsTable pairs={cmp.model_pairs} />
      )}
      <p>
        Without a partner: {cmp.unmatched.only_in_a} results only in A, {cmp.unmatched.only_in_b} only in B.
      </p>
      {props.judgeLinks && props.judgeLinks.length > 0 && (
        // A new judge's results never pair with A's by themselves: compare the judges on the same answers instead.
        <section id="compare-judges" aria-labelledby="compare-judges-heading">
          <h2 id="compare-judges-heading">Judges only run B has</h2>
          <p>Their results pair with none of run A's above. Compare one with a judge of run A, on the same questions, answering models and replicates:</p>
          <ul>
            {props.judgeLinks.map((l) => (
              <li>
                <a href={l.url}>
                  B's judge {l.b} against A's judge {l.a}
                </a>
              </li>
            ))}
          </ul>
        </section>
      )}
      <h2 id="flips-heading">Questions whose verdict flipped ({cmp.questions_with_flips})</h2>
      {cmp.questions.length === 0 ? (
        <p>{graded === 0 ? "No pair of results was graded pass or fail on both sides, so no verdict could flip." : "No verdict flipped."}</p>
      ) : (
        <FlipsTable questions={cmp.questions} runB={runs.b.run_id} />
      )}
      {props.nextUrl && <a href={props.nextUrl}>More flipped questions</a>}
    </Layout>
  );
}

/** The comparison per model pair: pass rates, change, flips each way, McNemar's p. */
function PairsTable(props: { pairs: Comparison["model_pairs"] }) {
  return (
    <table id="compare-pairs">
      <caption>Pass rate per model pair</caption>
      <ColumnHeads names={["Answering (A)", "Answering (B)", "Parsing", "Paired", "Excluded", "A", "B", "Change", "Pass → fail", "Fail → pass", "p", "Significant"]} />
      <tbody>
        {props.pairs.map((p) => (
          <tr>
            <td>{p.a_answering_model}</td>
            <td>{p.b_answering_model}</td>
            <td>{p.a_parsing_model ? `${p.a_parsing_model} → ${p.parsing_model}` : p.parsing_model}</td>
            <td>{p.paired}</td>
            <td>{p.excluded}</td>
            <td>{pct(p.a_pass_rate)}</td>
            <td>{pct(p.b_pass_rate)}</td>
            <td>{signedPct(p.delta)}</td>
            <td>{p.pass_to_fail}</td>
            <td>{p.fail_to_pass}</td>
            <td>{p.p_value.toPrecision(3)}</td>
            <td>{p.significant ? "yes" : "no"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The questions whose verdict flipped, each linked to its results in run B. */
function FlipsTable(props: { questions: Comparison["questions"]; runB: string }) {
  return (
    <table id="compare-flips" aria-labelledby="flips-heading">
      <ColumnHeads names={["Question", "Pass → fail", "Fail → pass", "Flipped results"]} />
      <tbody>
        {props.questions.map((q) => (
          <tr>
            <td>
              <a href={`${DASHBOARD}/runs/${props.runB}/results?question_id=${encodeURIComponent(q.question_id)}`}>{q.question_id}</a>
            </td>
            <td>{q.pass_to_fail}</td>
            <td>{q.fail_to_pass}</td>
            <td>
              <ul>
                {q.flips.map((f) => (
                  <li>
                    {f.a_answering_model === f.b_answering_model ? f.a_answering_model : `${f.a_answering_model} → ${f.b_answering_model}`} /{" "}
                    {f.a_parsing_model ? `${f.a_parsing_model} → ${f.parsing_model}` : f.parsing_model}, replicate {f.replicate}: {f.a} → {f.b}
                  </li>
                ))}
              </ul>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A failed export's way forward, as its words advise: the same format and filter, built again (a new export). */
function ExportAgain(props: { e: ExportRecord }) {
  const { e } = props;
  return (
    <form id="export-again" method="post" action={`${DASHBOARD}/runs/${e.run_id}/exports`}>
      {Object.entries(exportView(e).filter).map(([name, value]) => (
        <input type="hidden" name={name} value={String(value)} />
      ))}
      <button type="submit" name="format" value={e.format}>
        Start this export again
      </button>
    </form>
  );
}

/** An export's status; the download link once it is ready. While it builds, export.js reloads the page when that changes. */
export function ExportPage(props: { tenant: string; run: RunRecord; e: ExportRecord; canWrite?: boolean }) {
  const { e, run } = props;
  const base = `${DASHBOARD}/runs/${run.run_id}/exports/${e.export_id}`;
  return (
    <Layout title={`${FORMAT_NAMES[e.format]} export of ${run.run_name ?? run.run_id}`} signedIn={{ tenant: props.tenant }}>
      <p>
        <a href={`${DASHBOARD}/runs/${run.run_id}`}>Back to the run</a>
      </p>
      <section id="export" aria-labelledby="export-heading" data-status={e.status} data-status-url={base}>
        <p id="export-filter">Results: {exportFilterText(e)}.</p>
        <h2 id="export-heading">Status</h2>
        <p id="export-status" aria-live="polite">
          <ExportStatus e={e} />
        </p>
        {e.status === "ready" && (
          <p>
            <a id="export-download" href={`${base}/download`} download={exportFile(run, e)}>
              Download {exportFile(run, e)}
            </a>
          </p>
        )}
        {e.status === "failed" && props.canWrite && <ExportAgain e={e} />}
        {e.status === "building" && (
          <p>
            <a href={base}>Check again</a> (this page also refreshes by itself when the export is ready).
          </p>
        )}
      </section>
      <script src={`${DASHBOARD}/assets/export.js`} defer />
    </Layout>
  );
}
