/**
 * A keyboard user's walk through one page (Chromium): Tab from the top until focus leaves the page,
 * then report what that user would miss. Problems: an interactive element (link, button, form
 * control, summary, tabindex) never reached, reached out of document order, focused without a
 * visible outline (≥ 2 px), or without an accessible name as Chromium computes it for screen
 * readers (its accessibility tree, over the DevTools protocol: a control whose label is gone has none).
 */
import type { Page } from "playwright-core";

interface Focused {
  walk: string | null;
  tag: string;
  outlineStyle: string;
  outlineWidth: string;
}

/** Returns the problems found (empty: every interactive element reached in order, visibly focused and named). */
export async function keyboardWalk(page: Page, label: string): Promise<{ problems: string[]; reached: string[] }> {
  // (Strings, not functions: they run in the page, and this project compiles without the DOM types.)
  const interactive = (await page.evaluate(`(() => {
    const all = [...document.querySelectorAll("a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]")];
    const els = all.filter((e) => e.getClientRects().length > 0 && !e.disabled && e.tabIndex >= 0);
    els.forEach((e, i) => e.setAttribute("data-walk", String(i)));
    return els.map((e) => (e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + " " + (e.textContent || e.getAttribute("name") || "").trim().replace(/\\s+/g, " ")).slice(0, 60));
  })()`)) as string[];
  // Start from the top of the document: focus the body, so the first Tab reaches the first element.
  await page.evaluate(`(() => { document.body.tabIndex = -1; document.body.focus(); document.body.removeAttribute("tabindex"); })()`);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Accessibility.enable");
  const problems: string[] = [];
  const reached: string[] = [];
  const seen = new Set<string>();
  let previous = -1;
  for (let i = 0; i < interactive.length + 3; i++) {
    await page.keyboard.press("Tab");
    const f = (await page.evaluate(`(() => {
      const e = document.activeElement;
      if (!e || e === document.body) return null;
      const s = getComputedStyle(e);
      return { walk: e.getAttribute("data-walk"), tag: e.tagName.toLowerCase(), outlineStyle: s.outlineStyle, outlineWidth: s.outlineWidth };
    })()`)) as Focused | null;
    if (!f) break;
    if (f.walk === null) {
      problems.push(`${label}: Tab reached a ${f.tag} the page does not show as interactive`);
      continue;
    }
    if (seen.has(f.walk)) break; // wrapped around to the top
    seen.add(f.walk);
    const index = Number(f.walk);
    const what = interactive[index]!;
    reached.push(what);
    if (index < previous) problems.push(`${label}: ${what} reached out of document order`);
    previous = index;
    if (f.outlineStyle === "none" || Number.parseFloat(f.outlineWidth) < 2)
      problems.push(`${label}: no visible focus on ${what} (outline ${f.outlineStyle} ${f.outlineWidth})`);
    const { result } = await cdp.send("Runtime.evaluate", { expression: "document.activeElement" });
    const { nodes } = await cdp.send("Accessibility.getPartialAXTree", { objectId: result.objectId, fetchRelatives: false });
    const name = String(nodes.find((n) => !n.ignored)?.name?.value ?? "").trim();
    if (!name) problems.push(`${label}: ${what} has no accessible name (no label)`);
  }
  await cdp.detach();
  interactive.forEach((what, i) => {
    if (!seen.has(String(i))) problems.push(`${label}: ${what} is never reached by Tab`);
  });
  return { problems, reached };
}
