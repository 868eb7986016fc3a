-- Migration 11 of the store, PostgreSQL: the database itself announces every change to the
-- tables mounts show, so a change made by any program — homespace on another machine, or
-- psql, an administrator's script, a restore — reaches every mount's views. The payload is
-- the writing homespace's token (`SET LOCAL homespace.writer`), empty for other programs:
-- a mount skips only its own changes. Notifications are sent when the transaction commits,
-- and identical ones within one transaction are sent once.
CREATE FUNCTION homespace_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('homespace', coalesce(current_setting('homespace.writer', true), ''));
    RETURN NULL;
END $$;

DO $$
DECLARE
    shown TEXT;
BEGIN
    FOREACH shown IN ARRAY ARRAY['tasks', 'task_tags', 'task_deps', 'sessions',
        'session_aliases', 'entries', 'source_edits', 'settings', 'test_runs',
        'test_problems']
    LOOP
        EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I
                        FOR EACH STATEMENT EXECUTE FUNCTION homespace_changed()',
                       shown || '_announced', shown);
    END LOOP;
END $$;
