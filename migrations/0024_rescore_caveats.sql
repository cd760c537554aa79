-- What a re-scored run (src/rescore/README.md) did not carry over from its parent, as its 202 said:
-- `{left_out, graded_afresh}` (RescoreCaveats, src/schemas/rescore-caveats.ts) as JSON, so that
-- GET /v1/runs/:id and the dashboard's run page say it after the 202 is gone. NULL for every other
-- run, and for runs re-scored before this column existed (they did not record it).
ALTER TABLE runs ADD COLUMN rescore_caveats_json TEXT;
