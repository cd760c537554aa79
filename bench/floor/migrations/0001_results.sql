-- The floor's result rows (bench/floor/index.js): one per graded job.
CREATE TABLE results (id TEXT PRIMARY KEY, passed INTEGER);
