-- Migration 4 of the store: memory — sessions, their entries, the tag index, counters and
-- the full-text indexes. The rows of `sessions` and `entries` are the one source of truth:
-- the full-text indexes are external-content FTS5 tables (they keep no copy of the text),
-- and they, the tag index and every counter are kept by the triggers below, inside the
-- writing transaction, so none of them can drift from the rows.

CREATE TABLE sessions (
    -- Internal number; AUTOINCREMENT so a forgotten session's number is never reused (a
    -- view holding it can never reach another session).
    rowid           INTEGER PRIMARY KEY AUTOINCREMENT CHECK (rowid < 2147483648),
    -- The directory name.
    id              TEXT NOT NULL UNIQUE,
    source          TEXT NOT NULL,
    started         TEXT,
    ended           TEXT,
    title           TEXT NOT NULL DEFAULT '',
    cwd             TEXT,
    model           TEXT,
    continuation_of TEXT,
    -- `sessions/<day>/`: the day of `started`, or of the import when that is unknown. Set
    -- once, so a session never moves between directories.
    day             TEXT NOT NULL
        CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    -- Kept by the entry triggers.
    entry_count     INTEGER NOT NULL DEFAULT 0 CHECK (entry_count >= 0),
    -- summary.md, when written.
    summary         TEXT
);
-- `sessions/<day>/` in start order, the list of days, and the most recent sessions.
CREATE INDEX sessions_by_day ON sessions (day, started);

-- Other ids a session was imported under: Claude Code resumes a session under a new id and
-- repeats its entries, and that file joins the session it repeats.
CREATE TABLE session_aliases (
    alias   TEXT PRIMARY KEY,
    session INTEGER NOT NULL REFERENCES sessions (rowid) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX session_aliases_by_session ON session_aliases (session);

CREATE TABLE entries (
    -- (session << 32) + seq: the primary key (session, seq) as one integer, so an entry's
    -- number is stable (the full-text index refers to it), a session's entries are one range
    -- in seq order (no second index), and `session:` filters a full-text match by range.
    id      INTEGER PRIMARY KEY CHECK (id = (session << 32) + seq),
    session INTEGER NOT NULL REFERENCES sessions (rowid),
    seq     INTEGER NOT NULL CHECK (seq BETWEEN 1 AND 4294967295),
    channel TEXT NOT NULL CHECK (channel IN
        ('user', 'assistant', 'thinking', 'tool_call', 'tool_result', 'system', 'summary')),
    ts      TEXT,
    -- What identifies the entry in its source: importing it again adds nothing.
    key     TEXT NOT NULL,
    -- A JSON array of strings; the tag index follows it.
    tags    TEXT NOT NULL DEFAULT '[]' CHECK (json_type(tags) = 'array'),
    -- A JSON object.
    meta    TEXT NOT NULL DEFAULT '{}' CHECK (json_type(meta) = 'object'),
    -- Last, so reading the columns before it never walks a long text's overflow pages.
    content TEXT NOT NULL
);
-- UNIQUE (session, key), with the columns the other way round so it also finds a key in
-- any session (a resumed session repeating another's entries).
CREATE UNIQUE INDEX entries_by_key ON entries (key, session);

-- Entries are exact documents: only their tags change.
CREATE TRIGGER entries_fixed BEFORE UPDATE OF id, session, seq, channel, ts, key, meta, content
ON entries BEGIN
    SELECT RAISE(ABORT, 'memory entries cannot change, except their tags');
END;

-- The tag index (`tags/<tag>/`), derived from entries.tags.
CREATE TABLE entry_tags (
    tag   TEXT NOT NULL,
    entry INTEGER NOT NULL,
    PRIMARY KEY (tag, entry)
) WITHOUT ROWID;
-- A session's tags (a range of entry numbers), and an entry's tags.
CREATE INDEX entry_tags_by_entry ON entry_tags (entry);

-- Counters read in O(1): entries and sessions in all, sessions per source, entries per tag,
-- entries per session and channel.
CREATE TABLE memory_counts (
    name TEXT PRIMARY KEY,
    n    INTEGER NOT NULL CHECK (n >= 0)
) WITHOUT ROWID;
INSERT INTO memory_counts (name, n) VALUES ('sessions', 0), ('entries', 0);
CREATE TABLE memory_sources (
    source TEXT PRIMARY KEY,
    n      INTEGER NOT NULL CHECK (n >= 0)
) WITHOUT ROWID;
CREATE TABLE memory_tags (
    tag TEXT PRIMARY KEY,
    n   INTEGER NOT NULL CHECK (n >= 0)
) WITHOUT ROWID;
CREATE TABLE session_channels (
    session INTEGER NOT NULL,
    channel TEXT NOT NULL,
    n       INTEGER NOT NULL CHECK (n >= 0),
    PRIMARY KEY (session, channel)
) WITHOUT ROWID;

-- Full text of entries (content and tags) and of sessions (title and summary). External
-- content: the text is read from the rows when a snippet needs it.
CREATE VIRTUAL TABLE entries_fts USING fts5(
    content, tags,
    content = 'entries', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE sessions_fts USING fts5(
    title, summary,
    content = 'sessions', content_rowid = 'rowid',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER entries_added AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts (rowid, content, tags) VALUES (NEW.id, NEW.content, NEW.tags);
    UPDATE sessions SET entry_count = entry_count + 1 WHERE rowid = NEW.session;
    INSERT INTO session_channels (session, channel, n) VALUES (NEW.session, NEW.channel, 1)
        ON CONFLICT (session, channel) DO UPDATE SET n = n + 1;
    UPDATE memory_counts SET n = n + 1 WHERE name = 'entries';
END;
CREATE TRIGGER entries_added_tags AFTER INSERT ON entries WHEN NEW.tags != '[]' BEGIN
    INSERT OR IGNORE INTO entry_tags (tag, entry)
        SELECT value, NEW.id FROM json_each(NEW.tags) WHERE type = 'text';
END;
CREATE TRIGGER entries_removed AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, content, tags)
        VALUES ('delete', OLD.id, OLD.content, OLD.tags);
    DELETE FROM entry_tags WHERE entry = OLD.id;
    UPDATE sessions SET entry_count = entry_count - 1 WHERE rowid = OLD.session;
    UPDATE session_channels SET n = n - 1 WHERE session = OLD.session AND channel = OLD.channel;
    UPDATE memory_counts SET n = n - 1 WHERE name = 'entries';
END;
CREATE TRIGGER entries_retagged AFTER UPDATE OF tags ON entries BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, content, tags)
        VALUES ('delete', OLD.id, OLD.content, OLD.tags);
    INSERT INTO entries_fts (rowid, content, tags) VALUES (NEW.id, NEW.content, NEW.tags);
    DELETE FROM entry_tags WHERE entry = OLD.id;
    INSERT OR IGNORE INTO entry_tags (tag, entry)
        SELECT value, NEW.id FROM json_each(NEW.tags) WHERE type = 'text';
END;

CREATE TRIGGER entry_tags_added AFTER INSERT ON entry_tags BEGIN
    INSERT INTO memory_tags (tag, n) VALUES (NEW.tag, 1)
        ON CONFLICT (tag) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER entry_tags_removed AFTER DELETE ON entry_tags BEGIN
    UPDATE memory_tags SET n = n - 1 WHERE tag = OLD.tag;
    DELETE FROM memory_tags WHERE tag = OLD.tag AND n = 0;
END;

CREATE TRIGGER sessions_added AFTER INSERT ON sessions BEGIN
    INSERT INTO sessions_fts (rowid, title, summary) VALUES (NEW.rowid, NEW.title, NEW.summary);
    UPDATE memory_counts SET n = n + 1 WHERE name = 'sessions';
    INSERT INTO memory_sources (source, n) VALUES (NEW.source, 1)
        ON CONFLICT (source) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER sessions_removed AFTER DELETE ON sessions BEGIN
    INSERT INTO sessions_fts (sessions_fts, rowid, title, summary)
        VALUES ('delete', OLD.rowid, OLD.title, OLD.summary);
    DELETE FROM session_channels WHERE session = OLD.rowid;
    UPDATE memory_counts SET n = n - 1 WHERE name = 'sessions';
    UPDATE memory_sources SET n = n - 1 WHERE source = OLD.source;
    DELETE FROM memory_sources WHERE source = OLD.source AND n = 0;
END;
CREATE TRIGGER sessions_retitled AFTER UPDATE OF title, summary ON sessions
WHEN OLD.title IS NOT NEW.title OR OLD.summary IS NOT NEW.summary BEGIN
    INSERT INTO sessions_fts (sessions_fts, rowid, title, summary)
        VALUES ('delete', OLD.rowid, OLD.title, OLD.summary);
    INSERT INTO sessions_fts (rowid, title, summary) VALUES (NEW.rowid, NEW.title, NEW.summary);
END;
CREATE TRIGGER sessions_resourced AFTER UPDATE OF source ON sessions BEGIN
    UPDATE memory_sources SET n = n - 1 WHERE source = OLD.source;
    DELETE FROM memory_sources WHERE source = OLD.source AND n = 0;
    INSERT INTO memory_sources (source, n) VALUES (NEW.source, 1)
        ON CONFLICT (source) DO UPDATE SET n = n + 1;
END;
-- A session's number and day never change (entries and directories refer to them).
CREATE TRIGGER sessions_fixed BEFORE UPDATE OF rowid, day ON sessions
WHEN OLD.rowid != NEW.rowid OR OLD.day != NEW.day BEGIN
    SELECT RAISE(ABORT, 'a memory session keeps its number and day');
END;
