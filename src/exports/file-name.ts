/**
 * The file name an export downloads under (pure): `<run name>_<run id's first 8>_<when>[_<export id's first 8>].<ext>`,
 * so two exports of one run, or exports of two runs of the same name, land in different files. `when` is the
 * export's creation time (a built export) or the request's (a streamed one), UTC to the second.
 *
 * The run name is user input and goes into a header: `contentDisposition` writes it twice, per RFC 6266 §4.3:
 * `filename="…"`, an ASCII fallback (accents dropped, anything else but letters, digits, `.`, `-` and `_`
 * made `-`, so no quote, backslash, CR or LF can end the parameter or the header), and `filename*=UTF-8''…`,
 * the name in full, percent-encoded per RFC 8187 (5987's successor), which browsers prefer. Characters no
 * file system takes (`/ \ : * ? " < > |`) and control characters are dropped from the UTF-8 name as well.
 */

/** Of the run name: a longer one is cut (at a code point, never inside a surrogate pair). */
const NAME_CHARS = 60;

export interface ExportFileFacts {
  run_id: string;
  run_name: string | null;
  /** ISO time: the export's creation, or the streamed request's. */
  at: string;
  /** A built export's id (absent for a streamed one). */
  export_id?: string;
  extension: string;
}

/** The name in full (UTF-8) and its ASCII fallback. */
export function exportFileName(f: ExportFileFacts): { utf8: string; ascii: string } {
  const when = f.at.replace(/\.\d+/, "").replace(/[-:]/g, "");
  const tail = [f.run_id.slice(0, 8), when, ...(f.export_id ? [f.export_id.slice(0, 8)] : [])].join("_");
  const utf8Name = readableName(f.run_name ?? "");
  const asciiName = asciiOf(utf8Name);
  const file = (name: string) => `${name ? `${name}_` : ""}${tail}.${f.extension}`;
  return { utf8: file(utf8Name), ascii: asciiOf(file(asciiName)) };
}

/** `attachment` with both forms of the name (the header is ASCII whatever the name holds). */
export function contentDisposition(name: { utf8: string; ascii: string }): string {
  return `attachment; filename="${name.ascii}"; filename*=UTF-8''${rfc8187(name.utf8)}`;
}

/** Control and format characters, and what file systems refuse, out; spaces as `-`; at most NAME_CHARS. */
function readableName(name: string): string {
  const cleaned = name
    .normalize("NFC")
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}/\\:*?"<>|]+/gu, " ")
    .trim()
    .replace(/\s+/g, "-");
  return Array.from(cleaned)
    .slice(0, NAME_CHARS)
    .join("")
    .replace(/^[.-]+|[.-]+$/g, "");
}

/** Accents dropped (é → e), anything else outside `A-Za-z0-9._-` as `-`, a run of dashes as one. */
function asciiOf(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** RFC 8187 `value-chars`: UTF-8 bytes percent-encoded except `attr-char` (encodeURIComponent leaves `'()*!` too). */
function rfc8187(s: string): string {
  return encodeURIComponent(s).replace(/['()*!]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
}
