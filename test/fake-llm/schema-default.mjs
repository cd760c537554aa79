// Default structured value for a JSON Schema: the smallest "plausible" instance, deterministic.
//
// string → "fake" (or a format-shaped placeholder, padded to minLength) · integer/number → 0
// (clamped into minimum/maximum) · boolean → true · enum → first · const → const · array → []
// (or minItems copies of the item default) · object → every property listed in `properties`
// (required or not) · anyOf/oneOf/type-lists → the first non-null branch · $ref → resolved
// against the root ($defs / definitions). Recursion is cut at depth 12 with null.

const FORMAT_DEFAULTS = {
  date: "1970-01-01",
  "date-time": "1970-01-01T00:00:00Z",
  time: "00:00:00Z",
  email: "fake@example.com",
  uri: "https://example.com/fake",
  url: "https://example.com/fake",
  uuid: "00000000-0000-4000-8000-000000000000",
};

const MAX_DEPTH = 12;

/** @param {unknown} schema @returns {unknown} */
export function defaultFromSchema(schema) {
  return gen(schema, schema, 0);
}

function gen(schema, root, depth) {
  if (depth > MAX_DEPTH || schema === null || typeof schema !== "object") return null;
  const s = /** @type {Record<string, any>} */ (schema);
  if (typeof s.$ref === "string") return gen(resolveRef(s.$ref, root), root, depth + 1);
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  for (const key of ["anyOf", "oneOf"]) {
    if (Array.isArray(s[key]) && s[key].length > 0) {
      const branch = s[key].find((b) => !isNullSchema(b)) ?? s[key][0];
      return gen(branch, root, depth + 1);
    }
  }
  if (Array.isArray(s.allOf) && s.allOf.length > 0) {
    const parts = s.allOf.map((b) => gen(b, root, depth + 1));
    if (parts.every((p) => p && typeof p === "object" && !Array.isArray(p))) return Object.assign({}, ...parts);
    return parts[0];
  }
  const type = Array.isArray(s.type) ? (s.type.find((t) => t !== "null") ?? "null") : s.type;
  switch (type) {
    case "string":
      return stringDefault(s);
    case "integer":
    case "number":
      return numberDefault(s, type === "integer");
    case "boolean":
      return true;
    case "null":
      return null;
    case "array": {
      const n = Number.isInteger(s.minItems) ? s.minItems : 0;
      return Array.from({ length: n }, () => gen(s.items ?? {}, root, depth + 1));
    }
    case "object":
      return objectDefault(s, root, depth);
    default:
      if (s.properties && typeof s.properties === "object") return objectDefault(s, root, depth);
      return "fake";
  }
}

function objectDefault(s, root, depth) {
  const out = {};
  for (const [name, prop] of Object.entries(s.properties ?? {})) out[name] = gen(prop, root, depth + 1);
  return out;
}

function stringDefault(s) {
  let v = FORMAT_DEFAULTS[s.format] ?? "fake";
  if (Number.isInteger(s.minLength) && v.length < s.minLength) v = v.padEnd(s.minLength, "e");
  if (Number.isInteger(s.maxLength) && v.length > s.maxLength) v = v.slice(0, s.maxLength);
  return v;
}

function numberDefault(s, integer) {
  let v = 0;
  if (typeof s.minimum === "number" && v < s.minimum) v = s.minimum;
  if (typeof s.exclusiveMinimum === "number" && v <= s.exclusiveMinimum) v = s.exclusiveMinimum + (integer ? 1 : 0.5);
  if (typeof s.maximum === "number" && v > s.maximum) v = s.maximum;
  if (typeof s.exclusiveMaximum === "number" && v >= s.exclusiveMaximum) v = s.exclusiveMaximum - (integer ? 1 : 0.5);
  return integer ? Math.ceil(v) : v;
}

function isNullSchema(b) {
  return b && typeof b === "object" && (b.type === "null" || (Array.isArray(b.type) && b.type.length === 1 && b.type[0] === "null"));
}

function resolveRef(ref, root) {
  if (!ref.startsWith("#")) return {};
  let node = root;
  for (const raw of ref.slice(1).split("/").filter(Boolean)) {
    const part = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object") return {};
    node = node[part];
  }
  return node ?? {};
}
