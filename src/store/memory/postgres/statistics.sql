-- Migration 17 of the store, PostgreSQL only: the planner's statistics of the entries'
-- words keep the 10,000 most common words, from a sample of 300,000 entries (statistics
-- target 1000), rather than 1,000 from 30,000. Related sessions and recall take a word's
-- frequency from them where they know it, and otherwise count its entries up to 2,000
-- through the GIN index and the table; that counting was most of related.md's time, and
-- which words it counted changed with every ANALYZE's sample. The price: ANALYZE takes
-- several times longer, after a large import and when autovacuum gets to it.
ALTER TABLE entries ALTER COLUMN words SET STATISTICS 1000;
ANALYZE entries;
