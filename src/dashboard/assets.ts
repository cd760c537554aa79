/**
 * The dashboard's only stylesheet and script, served from its own origin so the CSP can forbid
 * every inline style and script (script-src 'self', style-src 'self').
 */

export const STYLESHEET = `
:root { color-scheme: light; font-family: system-ui, sans-serif; color: #1a1a1a; background: #fff; }
body { margin: 0 auto; max-width: 72rem; padding: 1rem; line-height: 1.45; }
header nav { display: flex; gap: 1rem; align-items: center; border-bottom: 1px solid #767676; padding-bottom: .5rem; }
header nav form { margin-left: auto; }
a { color: #0645ad; }
a:focus, button:focus, input:focus, select:focus { outline: 3px solid #1a5fb4; outline-offset: 2px; }
table { border-collapse: collapse; width: 100%; }
/* Names and ids are user input: a long one without spaces wraps anywhere instead of widening the page. */
h1, h2, p, li, th, td, caption, dd, label, legend, summary { overflow-wrap: anywhere; }
select, input { max-width: 100%; }
th, td { border-bottom: 1px solid #ccc; padding: .3rem .5rem; text-align: left; vertical-align: top; }
.verdict-pass { color: #0b6b1d; } .verdict-fail { color: #a4000f; } .verdict-error, .verdict-no_verdict { color: #7a4d00; }
.error, .failure { border: 2px solid #a4000f; padding: .5rem; }
pre { white-space: pre-wrap; word-break: break-word; background: #f4f4f4; padding: .5rem; }
.trace li { margin-bottom: .75rem; }
progress { width: 20rem; height: 1.2rem; }
.chart { max-width: 100%; height: auto; font-size: 13px; }
.chart .bar { fill: #1a5fb4; } .chart .axis { stroke: #767676; } .chart text { fill: #1a1a1a; }
.heatmap td { text-align: right; }
mark.excerpt { color: #1a1a1a; background: #ffe066; border-bottom: 2px solid #7a4d00; }
.judge-graph { max-width: 100%; height: auto; font-size: 12px; display: block; margin-bottom: 1rem; }
.judge-graph rect { fill: #ffffff; stroke: #1a5fb4; } .judge-graph .unit-error rect { stroke: #a4000f; }
.judge-graph .unit-skipped rect { stroke: #767676; } .judge-graph text { fill: #1a1a1a; } .judge-graph .edge { stroke: #595959; }
.heat-none { color: #1a1a1a; background: #ffffff; }
.heat-0 { color: #ffffff; background: #a4000f; }
.heat-1 { color: #1a1a1a; background: #f4b6a8; }
.heat-2 { color: #1a1a1a; background: #f2e3a0; }
.heat-3 { color: #1a1a1a; background: #b5e0b0; }
.heat-4 { color: #ffffff; background: #0b6b1d; }
.figures { display: grid; grid-template-columns: max-content auto; gap: .2rem 1rem; }
.figures dd { margin: 0; }
`;

/**
 * The run page's live progress: an EventSource on the run's event stream (data-events-url, the
 * cookie-authenticated /dashboard/runs/:id/events) updates the bar, the status, the cost so far and
 * the ETA in place (no reload). The browser reconnects a dropped stream by itself, sending
 * Last-Event-ID; after `done` the script closes it (the server has ended it, and EventSource
 * would otherwise reconnect). A stream the server refuses (signed out) says so on the page.
 */
export const PROGRESS_SCRIPT = `
(function () {
  var box = document.getElementById("progress");
  if (!box || box.getAttribute("data-terminal") === "true") return;
  var bar = box.querySelector("progress");
  var text = document.getElementById("progress-text"), status = document.getElementById("run-status");
  var cost = document.getElementById("progress-cost"), eta = document.getElementById("progress-eta");
  function seconds(s) { return s < 90 ? s + " s" : s < 5400 ? Math.round(s / 60) + " min" : (s / 3600).toFixed(1) + " h"; }
  var source = new EventSource(box.getAttribute("data-events-url"));
  source.addEventListener("progress", function (e) {
    var p = JSON.parse(e.data);
    bar.max = Math.max(p.total, 1); bar.value = p.done;
    text.textContent = p.done + " of " + p.total + " results recorded";
    cost.textContent = p.cost_usd === null ? "not priced" : "$" + p.cost_usd.toFixed(4);
    eta.textContent = p.done >= p.total ? "none left" : p.eta_s === null ? "not known yet" : seconds(p.eta_s);
  });
  source.addEventListener("status", function (e) {
    var s = JSON.parse(e.data).status;
    status.textContent = s;
    box.setAttribute("data-status", s);
  });
  source.addEventListener("done", function (e) {
    source.close();
    box.setAttribute("data-terminal", "true");
    var cancel = document.getElementById("cancel-form");
    if (cancel) cancel.hidden = true;
    // The figures below were drawn while the run went: say that a reload shows its final ones.
    var ended = document.getElementById("run-ended");
    if (ended) ended.hidden = false;
  });
  source.onerror = function () {
    if (source.readyState !== EventSource.CLOSED) return; // reconnecting by itself
    status.textContent = "progress unavailable (the stream was refused: signed out?); reload to retry";
    box.setAttribute("data-status", "unavailable");
  };
})();
`;

/**
 * The export page's wait: while the export builds, ask its status URL for JSON every second, write
 * the count in place, and reload once it is ready or failed (the server then draws the download
 * link or the reason). Without script, the page's "Check again" link does the same by hand.
 */
export const EXPORT_SCRIPT = `
(function () {
  var box = document.getElementById("export");
  if (!box || box.getAttribute("data-status") !== "building") return;
  var text = document.getElementById("export-status");
  function poll() {
    fetch(box.getAttribute("data-status-url"), { headers: { accept: "application/json" }, credentials: "same-origin" })
      .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
      .then(function (v) {
        if (v.status !== "building") { location.reload(); return; }
        text.textContent = "building: " + v.results_done + " of " + v.results_total + " results";
        setTimeout(poll, 1000);
      })
      .catch(function () { text.textContent = "status unavailable (signed out?); reload to retry"; });
  }
  setTimeout(poll, 1000);
})();
`;

/** The tab icon (without one, browsers fetch /favicon.ico and log its 404). */
export const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1a5fb4"/><path d="M4 8l3 3 5-6" stroke="#fff" stroke-width="2" fill="none"/></svg>`;
