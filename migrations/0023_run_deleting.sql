-- DELETE /v1/runs/:id removes a run's R2 objects and coordinator state before its D1 rows. A
-- deletion that fails between them left a row whose state was gone, and every read of it was a 500.
-- The row is now marked first: a run with `deleting_at` is answered 410 run_deleting (repeat the
-- DELETE) by every read, and the repeat carries on from wherever the first one stopped.
ALTER TABLE runs ADD COLUMN deleting_at TEXT;
