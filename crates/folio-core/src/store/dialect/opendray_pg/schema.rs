//! Which schema the database has: opendray's knowledge tables as migrations 0036–0056 leave
//! them. No tables, missing columns (older), columns folio does not know (newer) or a column
//! of another type than folio reads it as each stop the open with one line.
use postgres::Client;

use super::conn::Locator;

/// `knowledge_nodes` columns after migration 0056, in the order folio reads them.
pub const NODE_COLUMNS: &[&str] = &[
    "id",
    "kind",
    "entity_type",
    "title",
    "body",
    "scope",
    "scope_key",
    "maturity",
    "confidence",
    "provenance",
    "embedding",
    "embedder",
    "embedding_at",
    "created_at",
    "updated_at",
    "archived_at",
    "use_count",
    "last_used_at",
    "enabled",
    "success_count",
    "failure_count",
];
const EDGE_COLUMNS: &[&str] = &["src_id", "edge_type", "dst_id", "created_at"];
const SOURCE_COLUMNS: &[&str] = &["node_id", "memory_id"];

/// Check the three tables against what folio knows.
pub fn check(client: &mut Client, at: &Locator) -> Result<(), String> {
    let rows = client
        .query(
            "SELECT table_name::text, column_name::text, data_type::text FROM information_schema.columns \
             WHERE table_schema = current_schema() \
               AND table_name IN ('knowledge_nodes', 'knowledge_edges', 'knowledge_fact_sources')",
            &[],
        )
        .map_err(|e| at.explain(&e))?;
    let columns: Vec<(String, String, String)> = rows.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect();
    for (table, known) in [
        ("knowledge_nodes", NODE_COLUMNS),
        ("knowledge_edges", EDGE_COLUMNS),
        ("knowledge_fact_sources", SOURCE_COLUMNS),
    ] {
        let have: Vec<&str> = columns.iter().filter(|(t, ..)| t == table).map(|(_, c, _)| c.as_str()).collect();
        if have.is_empty() {
            return Err(format!(
                "{}: no table `{table}` here; this is not opendray's knowledge database (or its migrations 0036–0056 have not run)",
                at.redacted
            ));
        }
        if let Some(new) = have.iter().find(|c| !known.contains(c)) {
            return Err(format!(
                "{}: `{table}.{new}` is newer than folio knows (it reads opendray's schema up to migration 0056); \
                 nothing was read",
                at.redacted
            ));
        }
        if let Some(missing) = known.iter().find(|c| !have.contains(c)) {
            return Err(format!(
                "{}: `{table}` has no column `{missing}`: an older schema than migration 0056; run opendray's migrations first",
                at.redacted
            ));
        }
    }
    // A column of another type would fail the read of every row it is in.
    for (table, column, ty) in &columns {
        if let Some(want) = read_as(table, column).filter(|want| !want.contains(&ty.as_str())) {
            return Err(format!(
                "{}: `{table}.{column}` is {ty} where opendray's schema has {}; nothing was read",
                at.redacted, want[0]
            ));
        }
    }
    Ok(())
}

/// The types (information_schema's `data_type`) folio can read a column as, opendray's first;
/// None for a column read as text whatever it is (`provenance::text`) or never read (the
/// embedding's).
fn read_as(table: &str, column: &str) -> Option<&'static [&'static str]> {
    const TEXT: &[&str] = &["text", "character varying", "character"];
    match (table, column) {
        (_, "created_at" | "updated_at" | "archived_at" | "last_used_at") => Some(&["timestamp with time zone"]),
        ("knowledge_nodes", "confidence") => Some(&["double precision"]),
        ("knowledge_nodes", "use_count" | "success_count" | "failure_count") => Some(&["integer"]),
        ("knowledge_nodes", "enabled") => Some(&["boolean"]),
        ("knowledge_nodes", "provenance" | "embedding" | "embedder" | "embedding_at") => None,
        _ => Some(TEXT),
    }
}
