-- Migration 1 of the store: tasks, their tags and dependencies, derived counters, and the
-- full-text index. Counters and `waiting` are kept by triggers inside the writing
-- transaction, so they cannot drift from the rows they summarize.

CREATE TABLE tasks (
    -- AUTOINCREMENT: ids of deleted tasks are never reused, so an id always names one task.
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    slug        TEXT NOT NULL UNIQUE,
    title       TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('open', 'in_progress', 'blocked', 'done')),
    priority    INTEGER NOT NULL CHECK (priority BETWEEN 0 AND 4),
    description TEXT NOT NULL,
    created     TEXT NOT NULL,
    updated     TEXT NOT NULL,
    -- How many of this task's dependencies are not done (kept by the triggers below);
    -- a task is ready when it is open and waits for nothing.
    waiting     INTEGER NOT NULL DEFAULT 0 CHECK (waiting >= 0)
);
-- Listings read these in order and stop at LIMIT: a status directory, and ready/.
CREATE INDEX tasks_by_status ON tasks (status, priority, slug);
CREATE INDEX tasks_ready ON tasks (status, waiting, priority, slug);

CREATE TABLE task_tags (
    task INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    pos  INTEGER NOT NULL,
    tag  TEXT NOT NULL,
    PRIMARY KEY (task, pos),
    UNIQUE (task, tag)
) WITHOUT ROWID;
CREATE INDEX task_tags_by_tag ON task_tags (tag, task);

CREATE TABLE task_deps (
    task       INTEGER NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    pos        INTEGER NOT NULL,
    -- No cascade: deleting a task others depend on fails instead of silently editing them.
    depends_on INTEGER NOT NULL REFERENCES tasks (id),
    PRIMARY KEY (task, pos),
    UNIQUE (task, depends_on)
) WITHOUT ROWID;
CREATE INDEX task_deps_by_target ON task_deps (depends_on);

-- Tasks per status, and how many are ready: read in O(1) by every entry view.
CREATE TABLE task_counts (
    name TEXT PRIMARY KEY,
    n    INTEGER NOT NULL CHECK (n >= 0)
) WITHOUT ROWID;
INSERT INTO task_counts (name, n)
VALUES ('open', 0), ('in_progress', 0), ('blocked', 0), ('done', 0), ('ready', 0);

-- A new dependency on a task that is not done makes the task wait; removing one ends that.
CREATE TRIGGER task_deps_added AFTER INSERT ON task_deps BEGIN
    UPDATE tasks SET waiting = waiting + 1
    WHERE id = NEW.task AND (SELECT status FROM tasks WHERE id = NEW.depends_on) != 'done';
END;
CREATE TRIGGER task_deps_removed AFTER DELETE ON task_deps BEGIN
    UPDATE tasks SET waiting = waiting - 1
    WHERE id = OLD.task AND (SELECT status FROM tasks WHERE id = OLD.depends_on) != 'done';
END;
-- A task becoming done (or no longer done) changes what its dependents wait for.
CREATE TRIGGER tasks_done_changed AFTER UPDATE OF status ON tasks
WHEN (OLD.status = 'done') != (NEW.status = 'done') BEGIN
    UPDATE tasks SET waiting = waiting + (CASE WHEN NEW.status = 'done' THEN -1 ELSE 1 END)
    WHERE id IN (SELECT task FROM task_deps WHERE depends_on = NEW.id);
END;

CREATE TRIGGER tasks_counted AFTER INSERT ON tasks BEGIN
    UPDATE task_counts SET n = n + 1 WHERE name = NEW.status;
    UPDATE task_counts SET n = n + 1
    WHERE name = 'ready' AND NEW.status = 'open' AND NEW.waiting = 0;
END;
CREATE TRIGGER tasks_uncounted AFTER DELETE ON tasks BEGIN
    UPDATE task_counts SET n = n - 1 WHERE name = OLD.status;
    UPDATE task_counts SET n = n - 1
    WHERE name = 'ready' AND OLD.status = 'open' AND OLD.waiting = 0;
END;
CREATE TRIGGER tasks_recounted AFTER UPDATE OF status, waiting ON tasks BEGIN
    UPDATE task_counts SET n = n - 1 WHERE name = OLD.status;
    UPDATE task_counts SET n = n + 1 WHERE name = NEW.status;
    UPDATE task_counts
    SET n = n - (OLD.status = 'open' AND OLD.waiting = 0) + (NEW.status = 'open' AND NEW.waiting = 0)
    WHERE name = 'ready';
END;

-- rowid = tasks.id. The name column lets `search/tasks:fix-login` find the task by its name.
CREATE VIRTUAL TABLE tasks_fts USING fts5(
    name, title, description, tags,
    tokenize = 'unicode61 remove_diacritics 2'
);
