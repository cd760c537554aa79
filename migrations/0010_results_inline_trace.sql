-- A small result is stored whole in D1: its trace messages (the part compact_json leaves out) go
-- in trace_json and there is no R2 object (r2_key = ''). A result whose JSON is larger than
-- src/storage/result-store.ts INLINE_RESULT_MAX keeps its R2 object (trace_json NULL), as before.
-- Saves one R2 put per result: the largest per-result cost bench/throughput measured.
ALTER TABLE results ADD COLUMN trace_json TEXT;
