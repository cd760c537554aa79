/**
 * The run page's pictures, drawn on the server: the pass rate per model pair as an SVG bar chart,
 * and the question × answering-model heatmap as a table whose cells are shaded by pass rate. No
 * inline style (the CSP forbids it): colours come from classes in the stylesheet (assets.ts), and
 * every value is also written as text, so nothing is told by colour alone.
 */
import type { RunStatusView } from "../schemas/run-views";

type PairSummaryView = RunStatusView["summary"][number];

const pct = (rate: number | null) => (rate === null ? "no graded results" : `${(rate * 100).toFixed(1)} %`);

const ROW = 28;
const LABEL_W = 260;
const BAR_W = 400;

/** Horizontal bars, one per (answering, parsing) pair; a pair without graded results has no bar. */
export function PassRateChart(props: { pairs: readonly PairSummaryView[] }) {
  const h = props.pairs.length * ROW + 24;
  return (
    <svg
      id="pass-rate-chart"
      class="chart"
      role="img"
      aria-labelledby="pass-rate-chart-title pass-rate-chart-desc"
      viewBox={`0 0 ${LABEL_W + BAR_W + 90} ${h}`}
      width={LABEL_W + BAR_W + 90}
      height={h}
    >
      <title id="pass-rate-chart-title">Pass rate per model pair</title>
      <desc id="pass-rate-chart-desc">{props.pairs.map((p) => `${p.answering_model} judged by ${p.parsing_model}: ${pct(p.pass_rate)}`).join("; ")}</desc>
      {[0, 0.5, 1].map((t) => (
        <g>
          <line class="axis" x1={LABEL_W + t * BAR_W} x2={LABEL_W + t * BAR_W} y1={0} y2={h - 18} />
          <text class="tick" x={LABEL_W + t * BAR_W} y={h - 4} text-anchor="middle">
            {t * 100} %
          </text>
        </g>
      ))}
      {props.pairs.map((p, i) => {
        const y = i * ROW + 4;
        return (
          <g class="pair" data-pair={`${p.answering_model}|${p.parsing_model}`}>
            <text class="label" x={LABEL_W - 8} y={y + 15} text-anchor="end">
              {`${p.answering_model} → ${p.parsing_model}`}
            </text>
            {p.pass_rate !== null && <rect class="bar" x={LABEL_W} y={y} width={Math.round(p.pass_rate * BAR_W)} height={ROW - 8} />}
            <text class="value" x={LABEL_W + (p.pass_rate ?? 0) * BAR_W + 6} y={y + 15}>
              {pct(p.pass_rate)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

export interface HeatCell {
  question_id: string;
  answering_model: string;
  passed: number;
  failed: number;
  errored: number;
}

/** The shade class of a pass rate: five steps, and one for cells without graded results. */
export const heatClass = (rate: number | null) => (rate === null ? "heat-none" : `heat-${Math.min(4, Math.floor(rate * 5))}`);

/**
 * Questions down, answering models across; a cell is the pass rate over its parsing models and replicates.
 * `truncated`: the cell limit cut the page, maybe inside the last question, whose unread models would
 * read "no results": that question's row is left out.
 */
export function Heatmap(props: { cells: readonly HeatCell[]; truncated: boolean }) {
  const read = [...new Set(props.cells.map((c) => c.question_id))];
  const partial = props.truncated && read.length > 1 ? read[read.length - 1] : undefined;
  const cells = partial === undefined ? props.cells : props.cells.filter((c) => c.question_id !== partial);
  const models = [...new Set(cells.map((c) => c.answering_model))].sort();
  const questions = partial === undefined ? read : read.slice(0, -1);
  const at = new Map(cells.map((c) => [`${c.question_id}\u0000${c.answering_model}`, c]));
  return (
    <table id="heatmap" class="heatmap">
      <caption>
        Pass rate per question and answering model (over parsing models and replicates; errors are not counted as tries)
        {props.truncated ? `, first ${questions.length} questions only` : ""}
      </caption>
      <thead>
        <tr>
          <th scope="col">Question</th>
          {models.map((m) => (
            <th scope="col">{m}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {questions.map((q) => (
          <tr>
            <th scope="row">{q}</th>
            {models.map((m) => {
              const c = at.get(`${q}\u0000${m}`);
              const graded = c ? c.passed + c.failed : 0;
              const rate = c && graded > 0 ? c.passed / graded : null;
              return (
                <td class={heatClass(rate)} title={c ? `${c.passed} passed, ${c.failed} failed, ${c.errored} errored` : "no results"}>
                  {rate === null ? "—" : `${Math.round(rate * 100)} %`}
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
