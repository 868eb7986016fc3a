-- Migration 6 of the store: the entries' key index is kept per session, and only a
-- session's opening entries are found by key alone.
--
-- Why: `entries_by_key` (key, session) put every new entry at a random place in an index
-- as large as the entries' keys, so an import of a million entries touched (and journalled,
-- and wrote back at every commit) most of that index's pages over and over: a fifth of its
-- time. Keyed by session first, a new session's keys all go to the end of the index. What
-- needed the key first — finding the stored session a resumed transcript repeats — only
-- needs the first entries of each session: a resumed Claude Code session copies the
-- session it resumes from its start (src/store/memory/write.rs, `repeated`).

DROP INDEX entries_by_key;
-- UNIQUE (session, key): importing an entry a session holds adds nothing.
CREATE UNIQUE INDEX entries_by_session_key ON entries (session, key);
-- The keys of every session's first 32 entries (`repeated` in write.rs names the same).
CREATE INDEX entries_opening_keys ON entries (key) WHERE seq <= 32;
