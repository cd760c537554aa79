// The dotenv-style files the local worker reads its settings from: .dev.vars (committed; the
// local API and admin tokens) and the git-ignored .dev.vars.local (anything else a developer
// wants the worker to get). startLocalStack (local-stack.mjs) passes their entries to the worker.
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "./repo-root.mjs";

/** Parses a dotenv-style file (KEY=value, # comments, optional quotes). */
export function readEnvFile(file) {
  if (!fs.existsSync(file)) return {};
  const out = {};
  for (const line of fs.readFileSync(file, "utf8").split(/\r?\n/)) {
    const m = line.match(/^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/);
    if (!m) continue;
    out[m[1]] = m[2].replace(/^(["'])(.*)\1$/, "$2");
  }
  return out;
}

/** Names whose values are masked in printed wrangler output when they come from .dev.vars.local. */
const SECRET_NAME = /(^|_)(KEY|TOKEN|SECRET|PASSWORD|PEPPER|KEKS?)$/;

/**
 * What the worker gets besides .dev.vars: every entry of the git-ignored `.dev.vars.local`
 * (EDGEVAL_KEY_ORIGINS, a TAVILY_API_KEY, any var), then the secrets the script passes (keys
 * from the environment), which win. `mask` lists the values to hide in printed output: every
 * script secret, and the .dev.vars.local values whose names look secret (…_KEY, …TOKEN, …).
 *
 * @param {Record<string, string>} secrets
 * @param {string} [file] default: .dev.vars.local in the repo
 */
export function workerEnvEntries(secrets, file = path.join(REPO_ROOT, ".dev.vars.local")) {
  const local = readEnvFile(file);
  const entries = { ...local, ...secrets };
  const mask = [
    ...Object.values(secrets),
    ...Object.entries(local)
      .filter(([k]) => SECRET_NAME.test(k))
      .map(([, v]) => v),
  ];
  return { entries, mask, localNames: Object.keys(local) };
}

/** The API token the local worker accepts (from .dev.vars unless overridden). */
export const localToken = () => readEnvFile(path.join(REPO_ROOT, ".dev.vars")).EDGEVAL_API_TOKEN ?? "edgeval-local-dev-token";

/** The operator's token for /v1/admin on the local worker (from .dev.vars). */
export const localAdminToken = () => readEnvFile(path.join(REPO_ROOT, ".dev.vars")).EDGEVAL_ADMIN_TOKEN ?? "edgeval-local-admin-token";
