// A webhook receiver for the tests: a plain Node HTTP server that verifies every delivery with the
// `standardwebhooks` package (the counterpart a tenant would run), answers with a scripted status,
// and reports what it received over a small admin API.
//
//   POST /__admin/hooks {name, secrets: ["whsec_…"], script?: [{status, location?, delay_ms?}]}
//   PUT  /__admin/hooks/:name {secrets?, script?}   (replaces those fields)
//   GET  /__admin/hooks/:name → {received: [{webhook_id, timestamp, signature, body, verified_by, status}]}
//   POST /hooks/:name  ← deliveries. Each is verified with each secret on its own (`verified_by` lists
//   the indexes of the secrets that verify); an unverified delivery is answered 401, a verified one
//   with the next scripted answer, or 200 once the script is spent. Unknown hooks answer 404.
import http from "node:http";
import { Webhook } from "standardwebhooks";

export async function startWebhookReceiver({ port = 0 } = {}) {
  const hooks = new Map();
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url, "http://receiver");
    const send = (status, json, headers = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(json === undefined ? "" : JSON.stringify(json));
    };
    const admin = /^\/__admin\/hooks(?:\/([^/]+))?$/.exec(url.pathname);
    if (admin) {
      if (req.method === "POST") {
        const spec = JSON.parse(body);
        hooks.set(spec.name, { secrets: spec.secrets ?? [], script: spec.script ?? [], received: [] });
        return send(201, { name: spec.name });
      }
      const hook = hooks.get(decodeURIComponent(admin[1] ?? ""));
      if (!hook) return send(404, { error: "no such hook" });
      if (req.method === "PUT") {
        const patch = JSON.parse(body);
        if (patch.secrets) hook.secrets = patch.secrets;
        if (patch.script) hook.script = patch.script;
        return send(200, {});
      }
      return send(200, { received: hook.received });
    }
    const m = /^\/hooks\/([^/]+)$/.exec(url.pathname);
    const hook = m && req.method === "POST" ? hooks.get(decodeURIComponent(m[1])) : undefined;
    if (!hook) return send(404, { error: "no such hook" });
    const headers = {
      "webhook-id": req.headers["webhook-id"],
      "webhook-timestamp": req.headers["webhook-timestamp"],
      "webhook-signature": req.headers["webhook-signature"],
    };
    const verified_by = [];
    hook.secrets.forEach((secret, i) => {
      try {
        new Webhook(secret).verify(body, headers);
        verified_by.push(i);
      } catch {
        // not signed with this secret (or too old)
      }
    });
    const next = verified_by.length > 0 ? (hook.script.shift() ?? { status: 200 }) : { status: 401 };
    hook.received.push({
      webhook_id: headers["webhook-id"] ?? null,
      timestamp: headers["webhook-timestamp"] ?? null,
      signature: headers["webhook-signature"] ?? null,
      body,
      verified_by,
      status: next.status,
    });
    if (next.delay_ms) await new Promise((r) => setTimeout(r, next.delay_ms));
    return send(next.status, { ok: next.status < 300 }, next.location ? { location: next.location } : {});
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { port: server.address().port, close: () => new Promise((resolve) => server.close(resolve)) };
}
