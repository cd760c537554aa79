/** The outbound URL policy on its own (Node's WHATWG URL): the SSRF corpus, what stays allowed, and the address table. */
import { describe, expect, it } from "vitest";
import { classifyHost, parseIPv6 } from "../../../src/outbound/addresses";
import { type OutboundPolicy, outboundUrlIssue } from "../../../src/outbound/url-policy";
import { ssrfCorpus } from "../../fixtures/ssrf-corpus";

const production: OutboundPolicy = { local: false, privateOrigins: new Set(), providerOrigins: new Set() };
const local: OutboundPolicy = { ...production, local: true };

describe("outboundUrlIssue", () => {
  it("refuses every corpus URL in production, as a base URL and as an endpoint, over http and https", () => {
    for (const e of ssrfCorpus("8080", "/t")) {
      const urls = e.schemeOnly ? [e.url] : [e.url, e.url.replace(/^http:/, "https:")];
      for (const url of urls) {
        expect(outboundUrlIssue(url, production, "base"), url).not.toBeNull();
        if (!url.endsWith("?x=") && !url.endsWith("reset?")) expect(outboundUrlIssue(url, production, "endpoint"), url).not.toBeNull();
      }
    }
  });

  it("names the address range, not only the scheme", () => {
    expect(outboundUrlIssue("https://0x7f000001/v1", production, "base")).toContain("127.0.0.1, a loopback address");
    expect(outboundUrlIssue("https://[::ffff:a9fe:a9fe]/", production, "base")).toContain(
      "link-local (cloud metadata) (as IPv4-mapped IPv6)",
    );
    expect(outboundUrlIssue("https://[2002:c0a8:101::1]/", production, "base")).toContain("private (as 6to4 IPv6)");
  });

  it("allows public hosts over https, and a query only in an endpoint", () => {
    for (const url of [
      "https://api.openai.com/v1",
      "https://8.8.8.8/v1",
      "https://[2606:4700:4700::1111]/v1",
      "https://[::ffff:8.8.8.8]/",
      "https://llm.example.com:8443/v1",
    ]) {
      expect(outboundUrlIssue(url, production, "base"), url).toBeNull();
    }
    expect(outboundUrlIssue("https://hooks.example.com/in?token=abc", production, "endpoint")).toBeNull();
    expect(outboundUrlIssue("https://hooks.example.com/in?token=abc", production, "base")).toContain("has a query");
  });

  it("local mode allows http and loopback, and still refuses private ranges, userinfo and path tricks", () => {
    expect(outboundUrlIssue("http://127.1:9797/v1", local, "base")).toBeNull();
    expect(outboundUrlIssue("http://localhost:11434/v1", local, "base")).toBeNull();
    expect(outboundUrlIssue("http://[::1]:9797/v1", local, "base")).toBeNull();
    expect(outboundUrlIssue("http://10.0.0.1/v1", local, "base")).toContain("private");
    expect(outboundUrlIssue("http://169.254.169.254/", local, "base")).toContain("link-local");
    expect(outboundUrlIssue("http://u:p@127.0.0.1:9797/v1", local, "base")).toContain("credentials");
    expect(outboundUrlIssue("http://127.0.0.1:9797/_admin/reset#", local, "base")).toContain("fragment");
  });

  it("EDGEVAL_PRIVATE_ORIGINS allows exactly the listed origins", () => {
    const operator: OutboundPolicy = { ...production, privateOrigins: new Set(["http://10.0.0.5:8000"]) };
    expect(outboundUrlIssue("http://10.0.0.5:8000/v1", operator, "base")).toBeNull();
    expect(outboundUrlIssue("http://10.0.0.5:8001/v1", operator, "base")).not.toBeNull();
    expect(outboundUrlIssue("https://10.0.0.5:8000/v1", operator, "base")).not.toBeNull();
  });
});

describe("addresses", () => {
  it("parses IPv6 text, with a dotted IPv4 tail", () => {
    expect(parseIPv6("::1")).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6("::ffff:127.0.0.1")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIPv6("2001:db8::")).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6("1:2:3:4:5:6:7:8")).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const bad of ["1::2::3", "12345::", "1:2:3:4:5:6:7", "::g", "1:2:3:4:5:6:7:8:9"]) expect(parseIPv6(bad), bad).toBeNull();
  });

  it("classifies range edges", () => {
    const pub = (h: string) => classifyHost(h)?.public;
    expect(pub("172.15.255.255")).toBe(true);
    expect(pub("172.16.0.0")).toBe(false);
    expect(pub("172.32.0.0")).toBe(true);
    expect(pub("100.63.255.255")).toBe(true);
    expect(pub("100.64.0.0")).toBe(false);
    expect(pub("100.128.0.0")).toBe(true);
    expect(pub("223.255.255.255")).toBe(true);
    expect(pub("1.1.1.1")).toBe(true);
    expect(classifyHost("example.com")).toBeNull();
    expect(classifyHost("[::1]")).toEqual({ public: false, range: "IPv6 loopback", loopback: true });
  });
});
