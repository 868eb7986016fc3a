-- Migration 16 of the store, PostgreSQL only: memory's long columns compressed with LZ4
-- where the server was built with it (PostgreSQL 14+, `--with-lz4`, as Debian's and the
-- official images are), else left to pglz. Compressing content and words with pglz took a
-- large share of the server's time in `homespace import`; LZ4 is several times faster both
-- ways, for a little less compression. Values already stored keep theirs: reading takes
-- either.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings
               WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
        -- Run as text: PostgreSQL 13 (which has no SET COMPRESSION) would refuse the block
        -- while reading it, before the condition is ever asked.
        EXECUTE 'ALTER TABLE entries ALTER COLUMN content SET COMPRESSION lz4,
                                     ALTER COLUMN meta SET COMPRESSION lz4,
                                     ALTER COLUMN words SET COMPRESSION lz4';
        EXECUTE 'ALTER TABLE sessions ALTER COLUMN words SET COMPRESSION lz4';
    END IF;
END $$;
