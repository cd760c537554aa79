/** /v1/benchmarks: store, import and export Karenina checkpoints, list, read, delete. */
import { ListQuery } from "../../schemas/api";
import { Benchmark } from "../../schemas/benchmark";
import {
  BenchmarkList,
  BenchmarkListing,
  CheckpointDocument,
  DeletedBenchmark,
  ImportedCheckpoint,
  StoredBenchmark,
} from "../../schemas/benchmark-views";
import { Checkpoint } from "../../karenina/import";
import { BENCHMARK_BODY_LIMIT, IMPORT_BODY_LIMIT } from "../../schemas/body-limits";
import { EXAMPLE_BENCHMARK } from "../examples";
import type { Operation } from "../operation";

const benchmarkId = { id: "The benchmark_id POST /v1/benchmarks answered." };
const read = { kind: "tenant", scope: "benchmarks:read" } as const;
const write = { kind: "tenant", scope: "benchmarks:write" } as const;

export const BENCHMARK_OPERATIONS: Operation[] = [
  {
    method: "post",
    path: "/v1/benchmarks",
    operationId: "createBenchmark",
    tag: "benchmarks",
    summary: "Store a benchmark for runs to name by id",
    auth: write,
    body: { schema: Benchmark, maxBytes: BENCHMARK_BODY_LIMIT.bytes, example: EXAMPLE_BENCHMARK },
    responses: { 201: { description: "Stored.", schema: BenchmarkListing } },
  },
  {
    method: "post",
    path: "/v1/benchmarks/import",
    operationId: "importCheckpoint",
    tag: "benchmarks",
    summary: "Import a Karenina JSON-LD checkpoint",
    description:
      "Classic verify() templates run in a documented Python subset; VerifiedField templates become native templates. A template that cannot be imported is listed in `errors` and its question fails with template_validation. Also accepts `Content-Type: application/ld+json`.",
    auth: write,
    body: { schema: Checkpoint, maxBytes: IMPORT_BODY_LIMIT.bytes },
    responses: { 201: { description: "Imported and stored.", schema: ImportedCheckpoint } },
  },
  {
    method: "get",
    path: "/v1/benchmarks",
    operationId: "listBenchmarks",
    tag: "benchmarks",
    summary: "Stored benchmarks, newest first",
    auth: read,
    query: ListQuery,
    responses: { 200: { description: "One page; follow next_cursor until it is null.", schema: BenchmarkList } },
  },
  {
    method: "get",
    path: "/v1/benchmarks/:id",
    operationId: "getBenchmark",
    tag: "benchmarks",
    summary: "A stored benchmark and its listing fields",
    auth: read,
    pathParams: benchmarkId,
    responses: { 200: { description: "The benchmark.", schema: StoredBenchmark } },
  },
  {
    method: "get",
    path: "/v1/benchmarks/:id/checkpoint",
    operationId: "exportCheckpoint",
    tag: "benchmarks",
    summary: "The benchmark as a Karenina JSON-LD checkpoint",
    description:
      "Native templates are written as VerifiedField Python. What could not be carried over is counted in `X-Edgeval-Export-Warnings` and named in `X-Edgeval-Export-Warning-Messages` (a JSON array).",
    auth: read,
    pathParams: benchmarkId,
    responses: { 200: { description: "The checkpoint (a download).", schema: CheckpointDocument, contentType: "application/ld+json" } },
  },
  {
    method: "delete",
    path: "/v1/benchmarks/:id",
    operationId: "deleteBenchmark",
    tag: "benchmarks",
    summary: "Delete a stored benchmark",
    description: "Runs that used it keep their own copy of its questions.",
    auth: write,
    pathParams: benchmarkId,
    responses: { 200: { description: "Deleted.", schema: DeletedBenchmark } },
  },
];
