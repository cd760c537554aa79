// The repository's root directory, for the scripts, benches and tests that run the local stack:
// paths resolve from it, not from the caller's working directory.
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
