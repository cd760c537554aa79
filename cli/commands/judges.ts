/**
 * `edgeval judges …`: stored compound judges and their promptfoo tokens (src/stored-judges/README.md).
 * A token prints once, on stdout, so `export EDGEVAL_JUDGE_TOKEN=$(edgeval judges token ID)` works.
 */
import type { EdgevalClient, StoredJudgeRequest } from "../../src/client/index.ts";
import { CliError, type Out, readData } from "../io.ts";

export interface JudgesArgs {
  id?: string;
  config?: string;
  name?: string;
  tokenId?: string;
  expiresAt?: string;
}

const ACTIONS = "list | store --config F | replace ID --config F | delete ID | token ID [--name N] [--expires-at T] | tokens ID | revoke ID --token-id T";
const KNOWN = ["list", "store", "replace", "delete", "token", "tokens", "revoke"];

export async function judgesCommand(client: EdgevalClient, action: string, args: JudgesArgs, out: Out): Promise<number> {
  // An unknown action first: "judges lsit" is a typo, not a missing id.
  if (!KNOWN.includes(action)) throw new CliError(`unknown judges action ${action}: ${ACTIONS}`);
  const ev = client.storedJudges;
  if (action === "list") {
    // Every judge, page by page: the list answers at most 100 a request.
    for await (const j of ev.iterate()) out.line(`${j.judge_id}  ${j.name}  deadline ${j.deadline_ms} ms  ${j.promptfoo_url}`);
    return 0;
  }
  if (action === "store") {
    const j = await ev.create(judgeFile(args));
    out.line(j.judge_id);
    out.err(`judge ${j.judge_id} stored; mint a token for promptfoo with: edgeval judges token ${j.judge_id}`);
    return 0;
  }
  if (!args.id) throw new CliError(`judges ${action} needs the judge's id (edgeval judges list)`);
  if (action === "replace") {
    out.line((await ev.replace(args.id, judgeFile(args))).judge_id);
    return 0;
  }
  if (action === "delete") {
    await ev.delete(args.id);
    out.line(`judge ${args.id} and its tokens deleted`);
    return 0;
  }
  if (action === "token") {
    const t = await ev.mintToken(args.id, { ...(args.name ? { name: args.name } : {}), ...(args.expiresAt ? { expires_at: args.expiresAt } : {}) });
    out.line(t.token);
    out.err(`token ${t.token_id} for judge ${args.id}: shown once; promptfoo posts to ${client.url}${t.promptfoo_url.replace(t.token, "{{ env.EDGEVAL_JUDGE_TOKEN }}")}`);
    return 0;
  }
  if (action === "tokens") {
    // Every token, page by page, as list does.
    for await (const t of ev.iterateTokens(args.id)) out.line(`${t.token_id}  ${t.name}  ${tokenState(t)}  last used ${t.last_used_at ?? "never"}`);
    return 0;
  }
  if (!args.tokenId) throw new CliError("judges revoke needs --token-id T (edgeval judges tokens ID)");
  const t = await ev.revokeToken(args.id, args.tokenId);
  out.line(`token ${t.token_id} revoked at ${t.revoked_at}`);
  return 0;
}

function judgeFile(args: JudgesArgs): StoredJudgeRequest {
  if (!args.config) throw new CliError("give the stored judge as a file: --config FILE ({name, config, mapping?, deadline_ms?} as JSON or YAML)");
  return readData(args.config) as StoredJudgeRequest;
}

/** Revoked, expired, expiring or active: what a caller holding the token would meet. */
function tokenState(t: { revoked_at: string | null; expires_at?: string | null }): string {
  if (t.revoked_at) return `revoked ${t.revoked_at}`;
  if (!t.expires_at) return "active";
  return Date.parse(t.expires_at) <= Date.now() ? `expired ${t.expires_at}` : `expires ${t.expires_at}`;
}
