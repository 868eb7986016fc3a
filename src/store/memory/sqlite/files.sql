-- Migration 13 of the store: the files each memory session changed, one row per (session,
-- path) with the latest time it was changed (`../session_files.rs` reads them off the
-- entries' tool calls as they are written). Stores that already hold entries are filled
-- once, after this migration, by the backfill that `memory_backfills` asks for.

CREATE TABLE session_files (
    session INTEGER NOT NULL REFERENCES sessions (rowid) ON DELETE CASCADE,
    -- Relative to the session's cwd when the file lies under it; else as the tool wrote it.
    path    TEXT NOT NULL,
    -- The time of the latest entry that changed it, when entries have times.
    changed TEXT,
    PRIMARY KEY (session, path)
) WITHOUT ROWID;
-- `file:<path>` and `memory/files/<path>`: the sessions that changed a file.
CREATE INDEX session_files_by_path ON session_files (path);

-- Work a migration leaves to the code, by name; each is done once and its row deleted.
CREATE TABLE memory_backfills (name TEXT PRIMARY KEY) WITHOUT ROWID;
INSERT INTO memory_backfills (name) VALUES ('session_files');
