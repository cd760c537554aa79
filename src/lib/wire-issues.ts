/**
 * The one error map for zod issues that reach the wire: every issue says what was expected and
 * what came (`expected a number ≥ 0, got -1`), so a caller can fix the field without reading the
 * schema. Used by every parse of a request body or query (`src/http/body.ts`) and by nested
 * parses that relay their issues (primitive params, manual traces).
 *
 * - `WIRE_PARSE` is the parse option bag: it keeps each issue's input and words every issue a
 *   schema has no message of its own for.
 * - A schema's own message (written for its field: "type is one of bool, int, …") is kept and gets
 *   `(got …)` appended by `wireIssues`.
 * - `whenMissing(msg)` scopes a "… is required" message to a missing field; a field of the wrong
 *   type then gets the generated `expected a string, got 5`, not "name is required".
 * - `onWrongType(msg)` scopes a type message ("must be a number") to the type check, so a range
 *   check on the same schema words its own issue (`expected a number ≥ 0, got -1`).
 * - `mayHoldKey(msg)` words the issues of a field a key may be in (a secret's value, a key pasted
 *   where a secret's name goes): what came is described, never quoted.
 * - `wireIssues` flattens one issue into what the wire lists: one entry per unknown key, and a
 *   union's closest alternative instead of "matches none of the shapes".
 */
import type { z } from "zod";

type Issue = z.core.$ZodIssue;
type RawIssue = z.core.$ZodRawIssue;

export interface PathIssue {
  path: PropertyKey[];
  message: string;
}

/** What a received value looks like, short enough for a message. */
export function describeValue(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (typeof v === "string") return v.length > 60 ? `${JSON.stringify(v.slice(0, 57))}… (${v.length} characters)` : JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return String(v);
  if (Array.isArray(v)) return v.length === 0 ? "an empty list" : `a list of ${v.length} item${v.length === 1 ? "" : "s"}`;
  if (typeof v === "object") return Object.keys(v).length === 0 ? "an empty object" : "an object";
  return typeof v;
}

const TYPE_WORDS: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  bigint: "an integer",
  null: "null",
  undefined: "nothing",
  array: "a list",
  tuple: "a list",
  object: "an object",
  record: "an object",
  map: "an object",
  set: "a list",
  date: "a date",
  nan: "NaN",
  never: "no value here (remove the field)",
  nonoptional: "a value",
};

const typeWord = (t: string) => TYPE_WORDS[t] ?? `a ${t}`;
const literal = (v: unknown) => (typeof v === "string" ? JSON.stringify(v) : String(v));

function orList(words: string[]): string {
  const unique = [...new Set(words)];
  if (unique.length <= 1) return unique[0] ?? "";
  return `${unique.slice(0, -1).join(", ")} or ${unique[unique.length - 1]}`;
}

function sizeWords(
  origin: string,
  bound: number | bigint,
  inclusive: boolean | undefined,
  exact: boolean | undefined,
  below: boolean,
): string {
  const n = Number(bound);
  if (origin === "string" || origin === "array" || origin === "set" || origin === "file") {
    const unit = origin === "string" ? "character" : origin === "file" ? "byte" : "item";
    const count = (k: number) => `${k} ${unit}${k === 1 ? "" : "s"}`;
    const k = inclusive === false ? (below ? n + 1 : n - 1) : n;
    if (exact) return `exactly ${count(n)}`;
    if (below && k === 1) return origin === "string" ? "a non-empty string" : "at least one item";
    return below ? `at least ${count(k)}` : `at most ${count(k)}`;
  }
  const what = origin === "int" ? "an integer" : origin === "date" ? "a date" : "a number";
  if (exact) return `${what} equal to ${n}`;
  const op = below ? (inclusive === false ? ">" : "≥") : inclusive === false ? "<" : "≤";
  return `${what} ${op} ${n}`;
}

function formatWords(iss: { format: string; pattern?: string } & Record<string, unknown>): string {
  switch (iss.format) {
    case "regex":
      return `text matching /${iss.pattern}/`;
    case "starts_with":
      return `text starting with ${JSON.stringify(iss.prefix)}`;
    case "ends_with":
      return `text ending with ${JSON.stringify(iss.suffix)}`;
    case "includes":
      return `text containing ${JSON.stringify(iss.includes)}`;
    case "url":
      return "a URL";
    default:
      return `a valid ${iss.format}`;
  }
}

/** A union branch that failed only because the value had another type altogether. */
const wrongTypeOnly = (branch: readonly Issue[]) => branch.every((i) => i.code === "invalid_type" && i.path.length === 0);

/** The branch to report: the one alternative with the fewest issues, when there is exactly one. */
function closestBranch(errors: readonly (readonly Issue[])[]): readonly Issue[] | undefined {
  const near = errors.filter((b) => b.length > 0 && !wrongTypeOnly(b));
  if (near.length === 0) return undefined;
  const fewest = Math.min(...near.map((b) => b.length));
  const best = near.filter((b) => b.length === fewest);
  return best.length === 1 ? best[0] : undefined;
}

/** What the schema expected, in words, for issues zod raises itself. */
function expectedWords(iss: RawIssue | Issue): string {
  switch (iss.code) {
    case "invalid_type":
      return typeWord(iss.expected);
    case "too_small":
      return sizeWords(iss.origin, iss.minimum, iss.inclusive, iss.exact, true);
    case "too_big":
      return sizeWords(iss.origin, iss.maximum, iss.inclusive, iss.exact, false);
    case "invalid_format":
      return formatWords(iss as never);
    case "not_multiple_of":
      return `a multiple of ${iss.divisor}`;
    case "invalid_value":
      return iss.values.length === 1 ? literal(iss.values[0]) : `one of ${iss.values.map(literal).join(", ")}`;
    case "invalid_key":
      return `keys that are ${orList(iss.issues.map(expectedWords))}`;
    case "invalid_element":
      return `items that are ${orList(iss.issues.map(expectedWords))}`;
    case "invalid_union": {
      const errors = (iss.errors ?? []) as readonly (readonly Issue[])[];
      if (errors.length > 0 && errors.every(wrongTypeOnly)) {
        // "true or false or a number" reads badly; in a list of types a boolean is "true/false".
        return orList(
          errors.map((b) => (b[0]!.code === "invalid_type" && b[0]!.expected === "boolean" ? "true/false" : expectedWords(b[0]!))),
        );
      }
      return `one of ${errors.length || "the"} accepted shapes`;
    }
    default:
      return "a valid value";
  }
}

/** The error map (zod's `error` option): words an issue its schema has no message for. */
export function issueMessage(iss: RawIssue): string {
  if (iss.code === "unrecognized_keys") return "unknown field; remove it (check the spelling)";
  if (iss.code === "invalid_union") {
    const branch = closestBranch((iss.errors ?? []) as readonly (readonly Issue[])[]);
    if (branch) {
      const first = branch[0]!;
      const at = first.path.length ? `${first.path.map(String).join(".")}: ` : "";
      return `${at}${first.message}`;
    }
  }
  return `expected ${expectedWords(iss)}, got ${describeValue(iss.input)}`;
}

/** Parse options for anything a caller sent: inputs kept on issues, every issue worded. */
export const WIRE_PARSE = { reportInput: true, error: issueMessage } as const;

/** A schema's "X is required" message, for a missing field only (a wrong type gets the generated one). */
export const whenMissing = (message: string) => (iss: RawIssue) => (iss.input === undefined ? message : undefined);

/** A schema's type message, for its type check only (its range checks word their own issues). */
export const onWrongType = (message: string) => (iss: RawIssue) => (iss.code === "invalid_type" ? message : undefined);

/**
 * The message of a field that may hold a key: `(got …)` says how long the value was, never what it
 * was. A 400's message is printed by the CLI and kept in CI logs and in a webhook sender's delivery
 * log, so quoting the value (even cut to 57 characters) would put the key there.
 */
export const mayHoldKey = (message: string) => (iss: RawIssue) => `${message} (got ${unquoted(iss.input)})`;

function unquoted(v: unknown): string {
  if (typeof v === "string") return `${v.length} character${v.length === 1 ? "" : "s"}, not shown: this field may hold a key`;
  if (typeof v === "number" || typeof v === "bigint") return "a number";
  return describeValue(v);
}

const SCALAR = new Set(["string", "number", "boolean", "bigint"]);

/** A schema's own message plus what came, unless the message already says it. */
function withGot(iss: Issue): string {
  if (/\bgot\b/.test(iss.message)) return iss.message;
  if (!("input" in iss)) return iss.message;
  const input = iss.input;
  // A refinement over an object already names its rule; "got an object" would add nothing.
  if (iss.code === "custom" && input !== null && input !== undefined && !SCALAR.has(typeof input)) return iss.message;
  return `${iss.message} (got ${describeValue(input)})`;
}

/** One issue as the wire lists it: unknown keys one by one, a union by its closest alternative. */
export function wireIssues(iss: Issue, prefix: PropertyKey[] = []): PathIssue[] {
  const path = [...prefix, ...iss.path];
  if (iss.code === "unrecognized_keys") {
    return iss.keys.map((k) => ({ path: [...path, k], message: "unknown field; remove it (check the spelling)" }));
  }
  if (iss.code === "invalid_union") {
    const branch = closestBranch(iss.errors as readonly (readonly Issue[])[]);
    if (branch) return branch.flatMap((b) => wireIssues(b, path));
  }
  return [{ path, message: withGot(iss) }];
}
