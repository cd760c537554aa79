/** /v1/presets: stored verification configs (Karenina preset files accepted as is; src/presets/README.md). */
import { ListQuery } from "../../schemas/api";
import { PRESET_BODY_LIMIT } from "../../schemas/body-limits";
import { DeletedPreset, PresetList, PresetView } from "../../schemas/preset-views";
import { PresetRequest } from "../../schemas/presets";
import type { Operation } from "../operation";

const read = { kind: "tenant", scope: "runs:read" } as const;
const write = { kind: "tenant", scope: "runs:write" } as const;
const presetId = { id: "The preset_id (pre_…)." };
const example = {
  name: "haiku judge",
  config: {
    answering_models: [],
    parsing_models: [{ id: "judge", interface: "anthropic", model_name: "claude-haiku-4-5" }],
    parsing_only: true,
  },
};

export const PRESET_OPERATIONS: Operation[] = [
  {
    method: "post",
    path: "/v1/presets",
    operationId: "createPreset",
    tag: "presets",
    summary: "Store a verification config under an id",
    description:
      "A Karenina preset file is accepted as is ({config} with its id, name, description, created_at, updated_at and _comment… keys; Karenina's own id and times are ignored). Runs (POST /v1/runs) and triggers name it by preset_id; their config then overrides the preset's top-level keys.",
    auth: write,
    body: { schema: PresetRequest, maxBytes: PRESET_BODY_LIMIT.bytes, example },
    responses: { 201: { description: "The stored preset.", schema: PresetView } },
  },
  {
    method: "get",
    path: "/v1/presets",
    operationId: "listPresets",
    tag: "presets",
    summary: "The tenant's presets, newest first",
    auth: read,
    query: ListQuery,
    responses: { 200: { description: "One page; follow next_cursor until it is null.", schema: PresetList } },
  },
  {
    method: "get",
    path: "/v1/presets/:id",
    operationId: "getPreset",
    tag: "presets",
    summary: "One preset",
    auth: read,
    pathParams: presetId,
    responses: { 200: { description: "The preset.", schema: PresetView } },
  },
  {
    method: "put",
    path: "/v1/presets/:id",
    operationId: "replacePreset",
    tag: "presets",
    summary: "Replace a preset",
    description: "Runs already started keep the config they were planned with.",
    auth: write,
    pathParams: presetId,
    body: { schema: PresetRequest, maxBytes: PRESET_BODY_LIMIT.bytes, example },
    responses: { 200: { description: "The preset as replaced.", schema: PresetView } },
  },
  {
    method: "delete",
    path: "/v1/presets/:id",
    operationId: "deletePreset",
    tag: "presets",
    summary: "Delete a preset",
    auth: write,
    pathParams: presetId,
    responses: { 200: { description: "Deleted.", schema: DeletedPreset } },
  },
];
