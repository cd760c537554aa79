/**
 * One problem with a request, named by where it is: every check that refuses input (zod schemas,
 * run planning, the judge graph, model keys) reports these, and the API returns them as they are.
 */
export interface FieldIssue {
  /** Dotted path into the request body, e.g. `benchmark.questions[3].template.fields[0].type`. */
  path: string;
  message: string;
}
