-- Migration 15 of the store, PostgreSQL only: the outstanding tasks in the order every
-- listing takes. tasks/_entry.md and the dashboard show the first few outstanding tasks by
-- priority; the status indexes give each status in that order but not the three merged, so
-- the server sorted every outstanding task for each view, many times slower than SQLite and
-- than a walk of this index. The predicate is the one Filter::Outstanding selects with,
-- word for word, so the planner sees the index answers it.
CREATE INDEX tasks_outstanding ON tasks (priority, slug COLLATE "C")
WHERE status IN ('open', 'in_progress', 'blocked');
