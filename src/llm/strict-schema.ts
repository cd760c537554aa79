/**
 * OpenAI's strict structured outputs accept only a subset of JSON Schema: every object lists all
 * its properties in `required` and sets `additionalProperties: false`; an optional property is
 * expressed as nullable. `toStrictSchema` rewrites a schema into that form, or returns null when
 * it cannot (a free-form object, a `$ref` it does not follow), and the adapter then sends the
 * schema unstrict and relies on validation. `dropAddedNulls` undoes the rewrite on the answer: a
 * null the model put in a property that was optional (and not nullable) in the original schema is
 * removed, so the request's zod schema sees what it expects.
 */

type Schema = Record<string, unknown>;

const isObj = (x: unknown): x is Schema => x !== null && typeof x === "object" && !Array.isArray(x);

function allowsNull(s: Schema): boolean {
  if (s.type === "null") return true;
  if (Array.isArray(s.type) && s.type.includes("null")) return true;
  const branches = (s.anyOf ?? s.oneOf) as unknown;
  return Array.isArray(branches) && branches.some((b) => isObj(b) && allowsNull(b));
}

function nullable(s: Schema): Schema {
  if (allowsNull(s)) return s;
  if (typeof s.type === "string" && !("enum" in s) && !("const" in s)) return { ...s, type: [s.type, "null"] };
  return { anyOf: [s, { type: "null" }] };
}

/** The strict form of `schema`, or null when it has a shape strict mode cannot express. */
export function toStrictSchema(schema: Schema): Schema | null {
  try {
    return strict(schema);
  } catch {
    return null;
  }
}

function strict(s: Schema): Schema {
  if ("$ref" in s) throw new Error("$ref not followed");
  const out: Schema = { ...s };
  for (const k of ["anyOf", "oneOf", "allOf"] as const) {
    if (Array.isArray(s[k])) out[k === "oneOf" ? "anyOf" : k] = (s[k] as Schema[]).map(strict);
  }
  if ("oneOf" in out) delete out.oneOf;
  if ("default" in out) delete out.default; // strict mode refuses defaults
  if (isObj(s.items)) out.items = strict(s.items);
  const isObject = s.type === "object" || (Array.isArray(s.type) && s.type.includes("object"));
  if (isObject) {
    if (!isObj(s.properties)) throw new Error("free-form object");
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    const props: Schema = {};
    for (const [name, p] of Object.entries(s.properties)) {
      if (!isObj(p)) throw new Error("unreadable property");
      const sp = strict(p);
      props[name] = required.has(name) ? sp : nullable(sp);
    }
    out.properties = props;
    out.required = Object.keys(props);
    out.additionalProperties = false;
  }
  return out;
}

/** Removes nulls the strict form added (optional, non-nullable properties of the original). */
export function dropAddedNulls(value: unknown, original: Schema): unknown {
  if (Array.isArray(value)) return isObj(original.items) ? value.map((v) => dropAddedNulls(v, original.items as Schema)) : value;
  if (!isObj(value) || !isObj(original.properties)) return value;
  const required = new Set(Array.isArray(original.required) ? (original.required as string[]) : []);
  const out: Schema = {};
  for (const [k, v] of Object.entries(value)) {
    const p = (original.properties as Schema)[k];
    if (!isObj(p)) {
      out[k] = v;
      continue;
    }
    if (v === null && !required.has(k) && !allowsNull(p)) continue;
    out[k] = dropAddedNulls(v, p);
  }
  return out;
}
