-- Stored benchmarks: one row per POST /v1/benchmarks or /v1/benchmarks/import. The body (the
-- validated benchmark JSON) lives in R2 under benchmarks/{benchmark_id}/benchmark.json; this row
-- is the index listings read. R2 is written first, so a row always has its body.
CREATE TABLE benchmarks (
  benchmark_id   TEXT PRIMARY KEY,
  name           TEXT NOT NULL,
  question_count INTEGER NOT NULL,
  source         TEXT NOT NULL,        -- native | karenina_checkpoint
  body_key       TEXT NOT NULL,
  body_sha256    TEXT NOT NULL,
  created_at     TEXT NOT NULL
);
CREATE INDEX benchmarks_by_created ON benchmarks (created_at DESC, benchmark_id DESC);
