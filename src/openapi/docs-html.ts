/**
 * /docs: the API reference rendered on the server from the OpenAPI document, as plain HTML and
 * one stylesheet served by the worker itself. No script and no third-party CDN, so it works
 * offline and under a strict Content-Security-Policy (DOCS_CSP). Schemas are nested <details>
 * (no JavaScript needed to expand them); $refs link to the schema's section.
 */
type Json = Record<string, any>;

export const DOCS_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const refName = (ref: string) => ref.split("/").pop()!;
const anchor = (name: string) => `schema-${name}`;

/** Inline markdown of our own descriptions: `code` and **bold** only. */
const md = (s: string) =>
  esc(s)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<b>$1</b>");

function typeLabel(s: Json): string {
  if (!s || typeof s !== "object") return "any";
  if (s.$ref) return `<a href="#${anchor(refName(s.$ref))}">${esc(refName(s.$ref))}</a>`;
  if (s.const !== undefined) return `<code>${esc(JSON.stringify(s.const))}</code>`;
  if (s.enum) return s.enum.map((v: unknown) => `<code>${esc(JSON.stringify(v))}</code>`).join(" | ");
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return alts.map(typeLabel).join(" | ");
  if (s.type === "array") return `${typeLabel(s.items)}[]`;
  if (s.type === "object" && s.additionalProperties && typeof s.additionalProperties === "object" && !s.properties)
    return `map of ${typeLabel(s.additionalProperties)}`;
  if (Array.isArray(s.type)) return s.type.join(" | ");
  return esc(s.type ?? "any");
}

function constraints(s: Json): string {
  const keys = [
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "pattern",
    "format",
    "default",
  ];
  const parts = keys.filter((k) => s?.[k] !== undefined).map((k) => `${k} ${esc(JSON.stringify(s[k]))}`);
  return parts.length ? ` <span class="c">${parts.join(", ")}</span>` : "";
}

/** An object's properties as a list; nested inline objects open as <details>, to a depth. */
function schemaBody(s: Json, depth: number): string {
  if (!s || depth > 6) return "";
  const alts = s.anyOf ?? s.oneOf;
  if (alts && alts.some((a: Json) => a.properties)) {
    return alts
      .map((a: Json, i: number) => `<details><summary>variant ${i + 1}: ${typeLabel(a)}</summary>${schemaBody(a, depth + 1)}</details>`)
      .join("");
  }
  const target = s.type === "array" ? s.items : s;
  if (!target?.properties) return "";
  const required = new Set<string>(target.required ?? []);
  const rows = Object.entries<Json>(target.properties).map(([name, p]) => {
    const nested = schemaBody(p, depth + 1);
    const head = `<code>${esc(name)}</code>${required.has(name) ? ' <span class="req">required</span>' : ""} ${typeLabel(p)}${constraints(p)}${p.description ? ` — ${md(p.description)}` : ""}`;
    return nested ? `<li><details><summary>${head}</summary>${nested}</details></li>` : `<li>${head}</li>`;
  });
  return `<ul class="props">${rows.join("")}</ul>`;
}

function mediaBlock(content: Json | undefined): string {
  if (!content) return "";
  return Object.entries<Json>(content)
    .map(([type, m]) => {
      const example =
        m.example !== undefined ? `<details><summary>example</summary><pre>${esc(JSON.stringify(m.example, null, 2))}</pre></details>` : "";
      return `<p><code>${esc(type)}</code>: ${typeLabel(m.schema)}</p>${example}`;
    })
    .join("");
}

function operationHtml(path: string, method: string, op: Json): string {
  const params = (op.parameters ?? []) as Json[];
  const paramRows = params.map(
    (p) =>
      `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td>${typeLabel(p.schema)}${constraints(p.schema)}</td><td>${p.required ? "yes" : ""}</td><td>${md(p.description ?? "")}</td></tr>`,
  );
  const responses = Object.entries<Json>(op.responses).map(
    ([status, r]) => `<li><b>${esc(status)}</b> ${md(r.description)}${Number(status) < 400 ? mediaBlock(r.content) : ""}</li>`,
  );
  const auth = op["x-scope"] ? `API key with scope <code>${esc(op["x-scope"])}</code>` : "the operator's admin token";
  return `<section class="op" id="${esc(op.operationId)}">
<h3><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h3>
<p>${md(op.summary)}. Auth: ${auth}.</p>${op.description ? `<p>${md(op.description)}</p>` : ""}
${paramRows.length ? `<table><tr><th>parameter</th><th>in</th><th>type</th><th>required</th><th></th></tr>${paramRows.join("")}</table>` : ""}
${op.requestBody ? `<h4>Body</h4>${mediaBlock(op.requestBody.content)}<p class="c">at most ${esc(op["x-max-body-bytes"].toLocaleString("en"))} bytes</p>` : ""}
<h4>Responses</h4><ul>${responses.join("")}</ul>
<p class="c">Error codes: ${(op["x-error-codes"] as string[]).map((c) => `<a href="#error-${esc(c)}">${esc(c)}</a>`).join(", ")}</p>
</section>`;
}

export function renderDocs(doc: Json): string {
  const ops: string[] = [];
  const toc: string[] = [];
  for (const tag of doc.tags as { name: string }[]) {
    const inTag: string[] = [];
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      for (const [method, op] of Object.entries<Json>(item)) {
        if (!op.tags.includes(tag.name)) continue;
        inTag.push(operationHtml(path, method, op));
        toc.push(`<li><a href="#${esc(op.operationId)}">${esc(method.toUpperCase())} ${esc(path)}</a></li>`);
      }
    }
    ops.push(`<h2 id="tag-${esc(tag.name)}">${esc(tag.name)}</h2>${inTag.join("\n")}`);
  }
  const errors = (doc["x-error-catalogue"] as Json[]).map(
    (e) =>
      `<tr id="error-${esc(e.code)}"><td><code>${esc(e.code)}</code></td><td>${esc(e.status)}</td><td>${md(e.when)}</td><td>${md(e.fix)}</td></tr>`,
  );
  const schemas = Object.entries<Json>(doc.components.schemas).map(
    ([name, s]) =>
      `<section id="${anchor(name)}"><h3>${esc(name)}</h3><p>${typeLabel(s.$ref ? s : { ...s, anyOf: undefined, oneOf: undefined, type: s.type ?? (s.properties ? "object" : s.anyOf ? "one of" : "any") })}</p>${schemaBody(s, 0)}</section>`,
  );
  const policy = String(doc.info.description)
    .split("## Errors")[0]!
    .replace(/^## Versioning\s*/, "");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info.title)} API ${esc(doc.info.version)}</title><link rel="stylesheet" href="/docs/docs.css"></head>
<body><nav><h1>${esc(doc.info.title)} <small>${esc(doc.info.version)}</small></h1><p><a href="/openapi.json">openapi.json</a></p>
<ul>${toc.join("")}</ul><p><a href="#errors">Error codes</a> · <a href="#schemas">Schemas</a></p></nav>
<main><p>${md(doc.info.summary)}. Every <code>/v1</code> call takes <code>Authorization: Bearer &lt;token&gt;</code>.</p>
<h2>Versioning</h2><p>${md(policy)}</p>
${ops.join("\n")}
<h2 id="errors">Error codes</h2><p>Every error answers <code>{"error": {"code", "message", "issues"?, "request_id"}}</code>.</p>
<table><tr><th>code</th><th>status</th><th>when</th><th>what to do</th></tr>${errors.join("")}</table>
<h2 id="schemas">Schemas</h2>${schemas.join("\n")}</main></body></html>`;
}

export const DOCS_CSS = `body{margin:0;font:15px/1.5 system-ui,sans-serif;color:#1d2330;display:flex}
nav{position:sticky;top:0;height:100vh;overflow:auto;width:300px;flex:none;padding:1rem;background:#f4f6fa;border-right:1px solid #dde2ec;font-size:13px}
nav ul{list-style:none;padding:0}main{padding:1rem 2rem;max-width:1000px;min-width:0}
code,pre{font:13px ui-monospace,monospace}pre{background:#f4f6fa;padding:.5rem;overflow:auto;max-height:30rem}
.op{border-top:1px solid #dde2ec;padding:.5rem 0}.m{display:inline-block;min-width:4.5em;text-align:center;border-radius:4px;color:#fff;font-size:12px;padding:2px 4px}
.get{background:#2f7d4f}.post{background:#2d5fb3}.put{background:#8a5a00}.patch{background:#7a4bb3}.delete{background:#b3342d}
.props{list-style:none;padding-left:1rem;border-left:2px solid #e6e9f0}.req{color:#b3342d;font-size:11px}.c{color:#5b6475;font-size:12px}
table{border-collapse:collapse}td,th{border:1px solid #dde2ec;padding:4px 8px;vertical-align:top;text-align:left}summary{cursor:pointer}`;
