-- Migration 1 of the store, PostgreSQL: the same tables as schema.sql. Counters and
-- `waiting` are kept by triggers inside the writing transaction, as in SQLite; the
-- full-text index is a tsvector column of the task (its words cut as the query's are,
-- weighted as SQLite's bm25 weighs the columns) under a GIN index.

CREATE TABLE tasks (
    -- A sequence never hands out a number twice: an id always names one task.
    id          BIGSERIAL PRIMARY KEY,
    slug        TEXT NOT NULL UNIQUE,
    title       TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('open', 'in_progress', 'blocked', 'done')),
    priority    SMALLINT NOT NULL CHECK (priority BETWEEN 0 AND 4),
    description TEXT NOT NULL,
    created     TEXT NOT NULL,
    updated     TEXT NOT NULL,
    -- How many of this task's dependencies are not done; ready = open and waiting for none.
    waiting     INTEGER NOT NULL DEFAULT 0 CHECK (waiting >= 0),
    words       TSVECTOR NOT NULL DEFAULT ''
);
-- COLLATE "C": names order by bytes, as SQLite orders them.
CREATE INDEX tasks_by_status ON tasks (status, priority, slug COLLATE "C");
CREATE INDEX tasks_ready ON tasks (status, waiting, priority, slug COLLATE "C");
CREATE INDEX tasks_words ON tasks USING GIN (words);

CREATE TABLE task_tags (
    task BIGINT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    pos  INTEGER NOT NULL,
    tag  TEXT NOT NULL,
    PRIMARY KEY (task, pos),
    UNIQUE (task, tag)
);
CREATE INDEX task_tags_by_tag ON task_tags (tag, task);

CREATE TABLE task_deps (
    task       BIGINT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    pos        INTEGER NOT NULL,
    -- No cascade: deleting a task others depend on fails instead of silently editing them.
    depends_on BIGINT NOT NULL REFERENCES tasks (id),
    PRIMARY KEY (task, pos),
    UNIQUE (task, depends_on)
);
CREATE INDEX task_deps_by_target ON task_deps (depends_on);

CREATE TABLE task_counts (
    name TEXT PRIMARY KEY,
    n    INTEGER NOT NULL CHECK (n >= 0)
);
INSERT INTO task_counts (name, n)
VALUES ('open', 0), ('in_progress', 0), ('blocked', 0), ('done', 0), ('ready', 0);

-- A new dependency on a task that is not done makes the task wait; removing one ends that.
CREATE FUNCTION task_deps_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE tasks SET waiting = waiting + 1
        WHERE id = NEW.task AND (SELECT status FROM tasks WHERE id = NEW.depends_on) <> 'done';
    ELSE
        UPDATE tasks SET waiting = waiting - 1
        WHERE id = OLD.task AND (SELECT status FROM tasks WHERE id = OLD.depends_on) <> 'done';
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER task_deps_changed AFTER INSERT OR DELETE ON task_deps
FOR EACH ROW EXECUTE FUNCTION task_deps_changed();

-- A task becoming done (or no longer done) changes what its dependents wait for.
CREATE FUNCTION tasks_done_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE tasks SET waiting = waiting + (CASE WHEN NEW.status = 'done' THEN -1 ELSE 1 END)
    WHERE id IN (SELECT task FROM task_deps WHERE depends_on = NEW.id);
    RETURN NULL;
END $$;
CREATE TRIGGER tasks_done_changed AFTER UPDATE OF status ON tasks
FOR EACH ROW WHEN ((OLD.status = 'done') <> (NEW.status = 'done'))
EXECUTE FUNCTION tasks_done_changed();

-- The counters follow every insert, delete and change of status or waiting.
CREATE FUNCTION tasks_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE task_counts SET n = n - 1 WHERE name = OLD.status;
        UPDATE task_counts SET n = n - 1
        WHERE name = 'ready' AND OLD.status = 'open' AND OLD.waiting = 0;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        UPDATE task_counts SET n = n + 1 WHERE name = NEW.status;
        UPDATE task_counts SET n = n + 1
        WHERE name = 'ready' AND NEW.status = 'open' AND NEW.waiting = 0;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER tasks_counted AFTER INSERT OR DELETE OR UPDATE OF status, waiting ON tasks
FOR EACH ROW EXECUTE FUNCTION tasks_counted();
