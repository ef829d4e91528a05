-- folio's live updates from opendray's brain (docs/opendray-database.md, "Live"): each
-- statement that writes knowledge_nodes, knowledge_edges or knowledge_fact_sources announces
-- itself on the channel `folio_knowledge` (the table's name as payload), and a folio that has
-- the brain open re-reads it at once instead of scanning the tables' change markers.
-- Installed once by the database's owner:  psql "$DATABASE_URL" -f scripts/opendray-notify.sql
-- Removed with:  DROP FUNCTION folio_notify() CASCADE;
CREATE OR REPLACE FUNCTION folio_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('folio_knowledge', TG_TABLE_NAME);
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS folio_notify ON knowledge_nodes;
DROP TRIGGER IF EXISTS folio_notify ON knowledge_edges;
DROP TRIGGER IF EXISTS folio_notify ON knowledge_fact_sources;
CREATE TRIGGER folio_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON knowledge_nodes
  FOR EACH STATEMENT EXECUTE FUNCTION folio_notify();
CREATE TRIGGER folio_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON knowledge_edges
  FOR EACH STATEMENT EXECUTE FUNCTION folio_notify();
CREATE TRIGGER folio_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON knowledge_fact_sources
  FOR EACH STATEMENT EXECUTE FUNCTION folio_notify();
