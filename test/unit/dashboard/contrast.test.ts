/**
 * Issue 25 (labels and contrast): every text colour the dashboard's stylesheet sets, on the
 * background it sits on, meets WCAG 2.2's 4.5:1 for normal text (1.4.3), and chart marks meet 3:1
 * against the page (1.4.11). Colours are read from the stylesheet itself, so a new rule is checked
 * without touching this test.
 */
import { describe, expect, it } from "vitest";
import { STYLESHEET } from "../../../src/dashboard/assets";

type Rgb = [number, number, number];

function hex(value: string): Rgb {
  const m = value.trim().match(/^#([0-9a-f]{3}|[0-9a-f]{6})$/i);
  if (!m) throw new Error(`not a hex colour: ${value} (the contrast check reads hex only)`);
  const h = m[1]!.length === 3 ? [...m[1]!].map((c) => c + c).join("") : m[1]!;
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as Rgb;
}

/** WCAG 2.2 relative luminance and contrast ratio. */
const luminance = (rgb: Rgb) => {
  const [r, g, b] = rgb.map((v) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const contrast = (a: Rgb, b: Rgb) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
};

/** The stylesheet's rules as {selectors, declarations}. */
function rules(css: string): { selector: string; decl: Record<string, string> }[] {
  return [...css.matchAll(/([^{}]+)\{([^}]*)\}/g)].map((m) => ({
    selector: m[1]!.trim(),
    decl: Object.fromEntries(
      m[2]!
        .split(";")
        .map((d) => d.split(":").map((s) => s.trim()))
        .filter((d) => d.length === 2 && d[0])
        .map(([k, v]) => [k!, v!]),
    ),
  }));
}

describe("dashboard colours", () => {
  const all = rules(STYLESHEET);
  const root = all.find((r) => r.selector === ":root")!.decl;
  const pageText = hex(root.color!);
  const pageBg = hex(root.background!);

  it("the contrast formula gives WCAG's known values", () => {
    expect(contrast([0, 0, 0], [255, 255, 255])).toBeCloseTo(21, 5);
    expect(contrast(hex("#767676"), hex("#ffffff"))).toBeCloseTo(4.54, 2);
  });

  it("every text colour on its background is at least 4.5:1", () => {
    const checked: string[] = [];
    for (const r of all) {
      if (!r.decl.color && !r.decl.background) continue;
      const fg = r.decl.color ? hex(r.decl.color) : pageText;
      const bg = r.decl.background ? hex(r.decl.background) : pageBg;
      const ratio = contrast(fg, bg);
      checked.push(r.selector);
      expect(
        ratio,
        `${r.selector}: ${r.decl.color ?? root.color} on ${r.decl.background ?? root.background} is ${ratio.toFixed(2)}:1`,
      ).toBeGreaterThanOrEqual(4.5);
    }
    // The heatmap's shades, links and verdicts are among them.
    expect(checked).toEqual(expect.arrayContaining([".heat-0", ".heat-2", ".heat-4", "a", ".verdict-pass", "mark.excerpt"]));
  });

  it("chart and judge-graph marks and text stand out from the page (3:1 for marks, 4.5:1 for text)", () => {
    const drawn = all.filter((r) => r.selector.startsWith(".chart") || r.selector.startsWith(".judge-graph"));
    let checked = 0;
    for (const r of drawn) {
      for (const [prop, value] of Object.entries(r.decl)) {
        if (prop !== "fill" && prop !== "stroke") continue;
        // A box filled like the page is told by its stroke (checked), and its text sits on the page colour.
        if (prop === "fill" && !r.selector.endsWith("text") && contrast(hex(value), pageBg) === 1) continue;
        const need = r.selector.endsWith("text") ? 4.5 : 3;
        expect(contrast(hex(value), pageBg), `${r.selector} ${prop}`).toBeGreaterThanOrEqual(need);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(8);
  });
});
