/**
 * Named points in a job where the reliability suite (test/reliability, scenario 3) makes a delivery
 * crash: after the answer, after a judge call, before and after the R2 and D1 writes of a result,
 * before the coordinator hears of it. Production code calls `faultPoint` there; it does nothing
 * unless a test armed a handler with `armFaultPointsForTest`, which only tests import (a unit test
 * fails if anything under src/ names it) and which no binding, var or request reaches.
 */
export type FaultPoint = "after_answer" | "after_judge" | "before_r2" | "after_r2" | "before_d1" | "after_d1" | "before_record";

/** Where in which job: `job` is `<question id>/<answering id>/<replicate>`, `parsing` the judge's id (absent before judging). */
export interface FaultSite {
  run_id: string;
  job: string;
  parsing?: string;
}

let armed: ((point: FaultPoint, site: FaultSite) => void) | null = null;

/** Throws when a test's handler throws; free otherwise. */
export function faultPoint(point: FaultPoint, site: FaultSite): void {
  if (armed) armed(point, site);
}

/** Tests only: the handler every fault point calls (null disarms). */
export function armFaultPointsForTest(handler: ((point: FaultPoint, site: FaultSite) => void) | null): void {
  armed = handler;
}

/** The job label fault sites use. */
export const faultJob = (job: { question: { id: string }; answering: { id: string }; replicate: number }): string =>
  `${job.question.id}/${job.answering.id}/${job.replicate}`;
