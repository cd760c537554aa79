// A listener on loopback that must never be reached from a production-mode edgeval (the SSRF
// tests, test/integration/outbound-ssrf.test.ts). It counts every request by path and answers
// with text that must never come back to a caller:
//   /…/redirect/…  307 to /…/after-redirect (the same origin) — a redirect must not be followed
//   /…/text/…      200 text/plain with the secret
//   anything else  500 text/plain with the secret
//   GET /_canary/hits?prefix=/p  → {"hits": n} requests whose path starts with /p (not counted)
import http from "node:http";

export const CANARY_SECRET = "CANARY-SECRET-b7e1: internal listener text";

export async function startCanary() {
  const paths = [];
  const handler = (req, res) => {
    const url = new URL(req.url ?? "/", "http://canary");
    if (url.pathname === "/_canary/hits") {
      const prefix = url.searchParams.get("prefix") ?? "/";
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ hits: paths.filter((p) => p.startsWith(prefix)).length }));
      return;
    }
    paths.push(url.pathname);
    req.resume();
    if (url.pathname.includes("/redirect")) {
      res.writeHead(307, { location: url.pathname.replace("/redirect", "/after-redirect") });
      res.end();
    } else if (url.pathname.includes("/text")) {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(CANARY_SECRET);
    } else {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(CANARY_SECRET);
    }
  };
  const v4 = http.createServer(handler);
  await new Promise((resolve) => v4.listen(0, "127.0.0.1", resolve));
  const port = v4.address().port;
  // The same port on IPv6 loopback, where the machine has one ([::1] forms of the corpus).
  const v6 = http.createServer(handler);
  const v6ok = await new Promise((resolve) => {
    v6.once("error", () => resolve(false));
    v6.listen(port, "::1", () => resolve(true));
  });
  return {
    port,
    ipv6: v6ok,
    close: async () => {
      await new Promise((r) => v4.close(r));
      if (v6ok) await new Promise((r) => v6.close(r));
    },
  };
}
