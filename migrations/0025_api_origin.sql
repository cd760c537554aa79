-- The API origin (scheme://host[:port]) a run was submitted through, and a schedule created or
-- last changed through: webhook events link to the run there, as absolute URLs
-- (src/webhooks/links.ts). NULL on rows from before: their events keep the paths they had.
ALTER TABLE runs ADD COLUMN api_origin TEXT;
ALTER TABLE schedules ADD COLUMN api_origin TEXT;
