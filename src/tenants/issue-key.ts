/** Minting a key: the only place the clear key exists; the caller shows it once and drops it. */
import { generateKey, hashKey } from "./api-key";
import type { KeyRecord } from "./keys-repo";
import type { Scope } from "../schemas/scopes";

export interface KeyRequest {
  tenant_id: string;
  name: string;
  scopes: Scope[];
  expires_at: string | null;
  rotated_from: string | null;
}

export async function mintKey(pepper: string, req: KeyRequest, now: string): Promise<{ record: KeyRecord; key: string }> {
  const { keyId, key } = generateKey();
  const record: KeyRecord = {
    key_id: keyId,
    tenant_id: req.tenant_id,
    name: req.name,
    scopes: req.scopes,
    key_hash: await hashKey(key, pepper),
    created_at: now,
    expires_at: req.expires_at,
    revoked_at: null,
    last_used_at: null,
    rotated_from: req.rotated_from,
  };
  return { record, key };
}
