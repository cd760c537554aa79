#!/usr/bin/env python3
"""Submit, wait and export with edgeval's HTTP API, using only Python's standard library.

For Karenina users: a benchmark JSON, or a Karenina JSON-LD checkpoint (imported first, then run
by its benchmark_id), with a Karenina VerificationConfig. For Verdict users: `judge` grades one
output with a compound judge in Verdict's shapes.

  python3 edgeval_example.py run BENCHMARK.json|CHECKPOINT.jsonld --config CONFIG.json --out results.ndjson
  python3 edgeval_example.py judge --config JUDGE.json --output "text to grade" [--reference "..."]

The server and token come from --url/--token or EDGEVAL_URL/EDGEVAL_TOKEN (under `npm run dev`:
http://127.0.0.1:8787 and edgeval-local-dev-token). Exit codes: 0 the run completed, 1 it ended
otherwise (cancelled, budget_exceeded, failed, partial: its results are exported all the same), or
the judge failed the output, 2 a request was refused (the server's message says what to fix) or
the input is unusable (a missing or invalid file, an --out that cannot be written, a bad --url),
130 Ctrl-C while waiting (the run goes on on the server).
"""
import argparse
import json
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

TERMINAL = {"completed", "partial", "failed", "cancelled", "budget_exceeded"}

# Why a run that ended other than completed fails (exit 1), as the CLI says it (cli/summary.ts):
# its pass rates count only the results it has, and the jobs it never graded left none.
ENDINGS = {
    "cancelled": "it was cancelled before every job ran",
    "budget_exceeded": "its budget_usd was spent before every job ran",
    "failed": "not one result has a verdict (every job errored or was dead-lettered)",
    "partial": "some jobs were dead-lettered and left no result",
}


class ApiError(Exception):
    """A refused request, or input the script cannot use: one line on stderr, exit 2.

    `transient` marks what may answer otherwise later (no answer, 408, 429, 5xx), and
    `retry_after` is the server's Retry-After in seconds when it sent one."""

    def __init__(self, message, transient=False, retry_after=None):
        super().__init__(message)
        self.transient = transient
        self.retry_after = retry_after


def transient_status(status):
    return status in (408, 429) or status >= 500


def retry_after_seconds(headers):
    """Retry-After as delay-seconds (what edgeval sends); an HTTP date or anything else: None."""
    value = (headers.get("retry-after") or "").strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


class Client:
    def __init__(self, url, token):
        self.url = url.rstrip("/").removesuffix("/v1")
        self.token = token
        # "localhost:8787" has no scheme: urllib would fail with a traceback, not a hint.
        if not self.url.startswith(("http://", "https://")):
            raise ApiError("%s is not an http:// or https:// URL: give the server as e.g. http://%s (--url, EDGEVAL_URL)" % (self.url, self.url))
        # urllib would take "user:password@host" for a host name, and every message would print the password.
        parts = urllib.parse.urlsplit(self.url)
        if parts.username is not None or parts.password is not None:
            host = parts.netloc.rpartition("@")[2]
            raise ApiError("%s://***:***@%s%s holds a user name and password: give the server as %s://%s%s and the API key as the token (--token, EDGEVAL_TOKEN)" % (
                parts.scheme, host, parts.path, parts.scheme, host, parts.path))

    def call(self, method, path, body=None, content_type="application/json"):
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Authorization", "Bearer " + self.token)
        if data is not None:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, timeout=120) as res:
                text = res.read().decode("utf-8", "replace")
                try:
                    return json.loads(text)
                except ValueError:
                    # A 2xx that is not JSON is not edgeval's (a sign-in page, a web server at --url).
                    raise ApiError("%s %s -> %s: %s" % (method, path, res.status, not_edgeval(res.headers.get("content-type"), text, self.url)))
        except urllib.error.HTTPError as e:
            # Every edgeval error is {"error": {"code", "message", "issues"?, "request_id"}}.
            text = e.read().decode("utf-8", "replace")
            try:
                detail = json.loads(text).get("error")
            except (ValueError, AttributeError):
                detail = None
            again = {"transient": transient_status(e.code), "retry_after": retry_after_seconds(e.headers)}
            if not isinstance(detail, dict) or not isinstance(detail.get("code"), str):
                raise ApiError("%s %s -> %s: %s" % (method, path, e.code, not_edgeval(e.headers.get("content-type"), text, self.url)), **again)
            # The message names the first issue already; list them all only when there are more.
            issues = detail.get("issues") or []
            listed = "".join("\n  %s: %s" % (i["path"], i["message"]) for i in issues) if len(issues) > 1 else ""
            raise ApiError("%s %s -> %s %s: %s%s" % (method, path, e.code, detail["code"], detail.get("message"), listed), **again)
        except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
            # No answer (refused, reset, timed out): transient, so the status polls (call_retrying,
            # after the server has answered the submit) try it again; a first request fails at once.
            raise ApiError("%s %s: %s (is the server running at %s?)" % (method, path, getattr(e, "reason", e), self.url), transient=True)

    def call_retrying(self, method, path, max_retries=5):
        """call(), tried again after a blip (no answer, 408, 429, 5xx): after the server's Retry-After,
        else 1 s doubling to 30 s, at most max_retries times in a row, as the CLI does (src/client/retry.ts).
        A refusal that will not change (401, 403, 404), or a Retry-After above 5 minutes (a
        maintenance of days), fails at once."""
        for failures in range(1, max_retries + 2):
            try:
                return self.call(method, path)
            except ApiError as e:
                if not e.transient:
                    raise
                if failures > max_retries:
                    raise ApiError("%s (failed %d times in a row; gave up)" % (e, failures))
                delay = e.retry_after if e.retry_after is not None else min(2.0 ** (failures - 1), 30.0)
                if delay > 300:
                    raise
                print("(retrying in %g s, failure %d in a row: %s)" % (delay, failures, e), file=sys.stderr)
                time.sleep(delay)

    def pages(self, path, key, limit=500):
        """Every item of a paged list, following next_cursor."""
        cursor = None
        while True:
            query = {"limit": limit, **({"cursor": cursor} if cursor else {})}
            page = self.call("GET", path + "?" + urllib.parse.urlencode(query))
            yield from page[key]
            cursor = page["next_cursor"]
            if not cursor:
                return


def not_edgeval(content_type, text, url):
    """An error answer that is not edgeval's (a proxy's page, another server): its gist, and what to check."""
    title = re.search(r"<title[^>]*>([^<]*)</title>", text, re.I)
    gist = " ".join((title.group(1) if title else text).split())[:160]
    kind = (content_type or "").split(";")[0].strip()
    said = '%s"%s"' % (kind + ": " if kind else "", gist) if gist else (kind or "an empty body")
    return "not an edgeval answer (%s); is %s the edgeval server (--url, EDGEVAL_URL), with no proxy failing in between?" % (said, url)


def read_json(path):
    try:
        # utf-8-sig: a byte order mark (as Windows editors write) is skipped; json.load refuses it.
        with open(path, encoding="utf-8-sig") as f:
            return json.load(f)
    except FileNotFoundError:
        raise ApiError("cannot read %s: no such file" % path)
    except OSError as e:
        raise ApiError("cannot read %s: %s" % (path, e.strerror or e))
    except ValueError as e:
        raise ApiError("%s is not valid JSON: %s" % (path, e))


def check_writable(path):
    """Refuses an output file that cannot be written (no such directory, or a directory) before the run, not after it."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise ApiError("cannot write %s: there is no directory %s" % (path, os.path.dirname(path)))
    if os.path.isdir(path):
        raise ApiError("cannot write %s: it is a directory" % path)


def submit(client, benchmark_file, config):
    """POST /v1/runs; a Karenina checkpoint is imported first and run by its benchmark_id."""
    data = read_json(benchmark_file)
    body = {"config": config, "run_name": os.path.basename(benchmark_file)}
    if benchmark_file.endswith(".jsonld") or "@context" in data:
        imported = client.call("POST", "/v1/benchmarks/import", data, "application/ld+json")
        print("imported %d questions as benchmark %s" % (imported["imported"], imported["benchmark_id"]), file=sys.stderr)
        # What the import dropped or could not use: the run will not evaluate it.
        for w in imported.get("warnings", []):
            print("warning %s: %s" % (w["path"], w["message"]), file=sys.stderr)
        for e in imported.get("errors", []):
            print("error %s: %s (its question fails with template_validation)" % (e["path"], e["message"]), file=sys.stderr)
        body["benchmark_id"] = imported["benchmark_id"]
    else:
        body["benchmark"] = data
    return client.call("POST", "/v1/runs", body)["run_id"]


def wait(client, run_id, poll_seconds=1.0, timeout_seconds=3600):
    """Polls GET /v1/runs/:id until the status is terminal; prints progress as it changes. A blip
    (a gateway's 502/503/504, a 429, a reset) is retried; the run goes on meanwhile."""
    deadline = time.monotonic() + timeout_seconds
    seen = None
    while True:
        run = client.call_retrying("GET", "/v1/runs/" + run_id)
        progress = (run["status"], run["progress"]["done"], run["progress"]["total"])
        if progress != seen:
            print("%s: %d/%d results" % progress, file=sys.stderr)
            seen = progress
        if run["status"] in TERMINAL:
            return run
        if time.monotonic() > deadline:
            raise ApiError("run %s did not finish within %d s" % (run_id, timeout_seconds))
        time.sleep(poll_seconds)


def export(client, run_id, out_file):
    """Every result (Karenina's VerificationResult, traces left out) as one JSON line each."""
    n = 0
    with open(out_file, "w", encoding="utf-8") as f:
        for result in client.pages("/v1/runs/%s/results" % run_id, "results"):
            f.write(json.dumps(result) + "\n")
            n += 1
    return n


def cmd_run(client, args):
    check_writable(args.out)
    run_id = submit(client, args.benchmark, read_json(args.config))
    print("run", run_id, file=sys.stderr)
    try:
        run = wait(client, run_id, args.poll)
    except KeyboardInterrupt:
        # Ctrl-C stops the waiting, not the run: say so, and how to stop it.
        print("edgeval: interrupted: run %s goes on on the server; stop it with POST /v1/runs/%s/cancel" % (run_id, run_id), file=sys.stderr)
        return 130
    # GET /v1/runs/:id embeds at most 100 pairs; summary_total counts them all, the summary route pages the rest.
    pairs = run["summary"]
    if run.get("summary_total", len(pairs)) > len(pairs):
        pairs = list(client.pages("/v1/runs/%s/summary" % run_id, "summary"))
    for pair in pairs:
        rate = "-" if pair["pass_rate"] is None else "%.1f %%" % (pair["pass_rate"] * 100)
        print("%-12s %-12s passed %3d  failed %3d  errored %3d  pass rate %s" % (
            pair["answering_model"], pair["parsing_model"], pair["passed"], pair["failed"], pair["errored"], rate))
    n = export(client, run_id, args.out)
    print("%s: %d results written to %s" % (run["status"], n, args.out))
    if run["status"] != "completed":
        why = ENDINGS.get(run["status"], "it has not finished")
        print("FAIL run %s ended %s with %d/%d results: %s" % (run_id, run["status"], run["progress"]["done"], run["progress"]["total"], why), file=sys.stderr)
        return 1
    return 0


def cmd_judge(client, args):
    config = read_json(args.config)
    body = {"config": config, "output": args.output}
    if args.reference is not None:
        body["reference"] = args.reference
    outcome = client.call("POST", "/v1/judge", body)
    # pass is null when the judge itself failed: that says nothing about the output.
    print(json.dumps({k: outcome.get(k) for k in ("pass", "score", "threshold", "reason", "error")}))
    return 0 if outcome["pass"] else 1


def poll_interval(value):
    """--poll: seconds between status GETs. Below 0.1 (0 or a negative number) it would hammer the
    server or fail in time.sleep after the run was submitted; refused first, as the CLI's --poll-ms."""
    try:
        seconds = float(value)
    except ValueError:
        seconds = float("nan")
    if not seconds >= 0.1 or seconds == float("inf"):
        raise argparse.ArgumentTypeError("takes seconds >= 0.1 between status checks, e.g. 1 (got %r)" % value)
    return seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default=os.environ.get("EDGEVAL_URL", "http://127.0.0.1:8787"))
    parser.add_argument("--token", default=os.environ.get("EDGEVAL_TOKEN"))
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="submit a benchmark, wait for the run, export its results")
    run.add_argument("benchmark")
    run.add_argument("--config", required=True)
    run.add_argument("--out", default="results.ndjson")
    run.add_argument("--poll", type=poll_interval, default=1.0, help="seconds between status checks (default 1)")
    judge = sub.add_parser("judge", help="grade one output with a compound judge")
    judge.add_argument("--config", required=True)
    judge.add_argument("--output", required=True)
    judge.add_argument("--reference")
    args = parser.parse_args(argv)
    if not args.token:
        parser.error("no token: pass --token or set EDGEVAL_TOKEN (under npm run dev: edgeval-local-dev-token)")
    try:
        client = Client(args.url, args.token)
        return cmd_run(client, args) if args.command == "run" else cmd_judge(client, args)
    except ApiError as e:
        print("edgeval: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
