-- Migration 13 of the store, PostgreSQL: the files each memory session changed, as
-- SQLite's files.sql keeps them. Stores that already hold entries are filled once, after
-- this migration, by the backfill that `memory_backfills` asks for.

CREATE TABLE session_files (
    session INTEGER NOT NULL REFERENCES sessions (rowid) ON DELETE CASCADE,
    path    TEXT NOT NULL,
    changed TEXT,
    PRIMARY KEY (session, path)
);
CREATE INDEX session_files_by_path ON session_files (path COLLATE "C");

CREATE TABLE memory_backfills (name TEXT PRIMARY KEY);
INSERT INTO memory_backfills (name) VALUES ('session_files');
