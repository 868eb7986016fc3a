-- Migration 5 of the store: bulk loading of memory. `homespace import` marks its
-- transaction with the one row of `memory_bulk_load`; while the row is there, a new entry
-- is neither put into the full-text index nor counted by the triggers, one by one: the
-- loader indexes and counts the transaction's new entries in one pass each, in entry order,
-- before it removes the row and commits (src/store/memory/bulk.rs). Index and counters are
-- still kept in the writing transaction; the row is never committed, so every other writer
-- (and every reader) sees the triggers at work as before.
--
-- Why: FTS5 writes its pending terms to a new index segment whenever a statement that
-- writes more than one table starts, as the entry triggers' statements do, so loading
-- entry batches through the trigger wrote a segment per file and merged them again and
-- again. One pass writes a segment per few tens of thousands of entries.

CREATE TABLE memory_bulk_load (
    only INTEGER PRIMARY KEY CHECK (only = 1)
);

DROP TRIGGER entries_added;
CREATE TRIGGER entries_added AFTER INSERT ON entries
WHEN NOT EXISTS (SELECT 1 FROM memory_bulk_load) BEGIN
    INSERT INTO entries_fts (rowid, content, tags) VALUES (NEW.id, NEW.content, NEW.tags);
    UPDATE sessions SET entry_count = entry_count + 1 WHERE rowid = NEW.session;
    INSERT INTO session_channels (session, channel, n) VALUES (NEW.session, NEW.channel, 1)
        ON CONFLICT (session, channel) DO UPDATE SET n = n + 1;
    UPDATE memory_counts SET n = n + 1 WHERE name = 'entries';
END;
