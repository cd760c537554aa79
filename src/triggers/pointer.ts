/**
 * RFC 6901 JSON Pointers, read-only: "" is the whole document, "/a/0/b~1c" walks object keys and
 * array indexes (`~1` is "/", `~0` is "~"). The only way a trigger's mapping reads its payload, so
 * a mapping cannot run code or reach anything but the delivered JSON.
 */
export type PointerResult = { found: true; value: unknown } | { found: false; at: string };

export function resolvePointer(doc: unknown, pointer: string): PointerResult {
  if (pointer === "") return { found: true, value: doc };
  let here = doc;
  let walked = "";
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    walked += `/${raw}`;
    if (Array.isArray(here)) {
      // RFC 6901 §4: an index is "0" or digits without a leading zero; "-" names no element.
      if (!/^(0|[1-9]\d*)$/.test(token) || Number(token) >= here.length) return { found: false, at: walked };
      here = here[Number(token)];
    } else if (here !== null && typeof here === "object" && Object.hasOwn(here, token)) {
      here = (here as Record<string, unknown>)[token];
    } else {
      return { found: false, at: walked };
    }
  }
  return { found: true, value: here };
}
