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
th, td { border-bottom: 1px solid #ccc; padding: .3rem .5rem; text-align: left; vertical-align: top; }
.verdict-pass { color: #0b6b1d; } .verdict-fail { color: #a4000f; } .verdict-error, .verdict-no_verdict { color: #7a4d00; }
.error, .failure { border: 2px solid #a4000f; padding: .5rem; }
pre { white-space: pre-wrap; word-break: break-word; background: #f4f4f4; padding: .5rem; }
.trace li { margin-bottom: .75rem; }
progress { width: 20rem; height: 1.2rem; }
`;

/**
 * The run page's live progress: polls the cookie-authenticated progress endpoint named by the
 * element's data-progress-url once a second and updates the bar in place (no reload), until the
 * run reaches a terminal status.
 */
export const PROGRESS_SCRIPT = `
(function () {
  var box = document.getElementById("progress");
  if (!box) return;
  var url = box.getAttribute("data-progress-url");
  var bar = box.querySelector("progress"), text = document.getElementById("progress-text"), status = document.getElementById("run-status");
  function show(p) {
    bar.max = Math.max(p.total, 1); bar.value = p.done;
    text.textContent = p.done + " of " + p.total + " jobs done";
    status.textContent = p.status;
    box.setAttribute("data-status", p.status);
  }
  function tick() {
    fetch(url, { credentials: "same-origin", headers: { accept: "application/json" } })
      .then(function (r) { if (!r.ok) throw new Error("progress: HTTP " + r.status); return r.json(); })
      .then(function (p) { show(p); if (!p.terminal) setTimeout(tick, 1000); })
      .catch(function (e) { status.textContent = "progress unavailable (" + e.message + "); reload to retry"; box.setAttribute("data-status", "unavailable"); });
  }
  if (box.getAttribute("data-terminal") !== "true") setTimeout(tick, 1000);
})();
`;

/** The tab icon (without one, browsers fetch /favicon.ico and log its 404). */
export const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1a5fb4"/><path d="M4 8l3 3 5-6" stroke="#fff" stroke-width="2" fill="none"/></svg>`;
