/**
 * GET /openapi.json and GET /docs (+ its stylesheet): public, no token, no third-party origin.
 * Both are built once per isolate from the same document.
 */
import { Hono } from "hono";
import { DOCS_CSP, DOCS_CSS, renderDocs } from "./docs-html";
import { openApiDocument } from "./document";

export const apiDocs = new Hono();

let html: string | undefined;
const NOSNIFF = { "X-Content-Type-Options": "nosniff" };

apiDocs.get("/openapi.json", (c) => c.json(openApiDocument(), 200, { ...NOSNIFF, "Cache-Control": "public, max-age=300" }));

apiDocs.get("/docs", (c) => {
  html ??= renderDocs(openApiDocument());
  return c.html(html, 200, { ...NOSNIFF, "Content-Security-Policy": DOCS_CSP, "Cache-Control": "public, max-age=300" });
});

apiDocs.get("/docs/docs.css", (c) =>
  c.body(DOCS_CSS, 200, { ...NOSNIFF, "Content-Type": "text/css; charset=utf-8", "Cache-Control": "public, max-age=300" }),
);
