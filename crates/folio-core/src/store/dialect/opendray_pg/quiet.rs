//! Whether the database can have changed since an open, asked of the server's write-ahead
//! log rather than of the three tables: every transaction that writes a row of a logged table
//! appends a commit record to the log, so while the log's end has not moved, no row has. The
//! tables' sums (`rows::tables`) scan 100k nodes and 150k edges — ≈ 190 ms of the server's CPU
//! on every open of the 100k brain, on the two cores folio decodes its cache on
//! (docs/benchmarks.md, "Thirty-fifth session").
//!
//! An open vouches for a snapshot generation at a position (`vouch`, in `snapshot.quiet`
//! beside the index) when the position was read before its transaction's snapshot was taken
//! and no other transaction had an id at that snapshot (`none_running`): a transaction that
//! commits later writes its commit record after the position, and every one whose commit
//! record came before it was visible to the snapshot. A later open that finds the log
//! where it was, and the index at that generation, knows the sums without asking for them. A
//! standby, an unlogged table, a server that will not say, or any write anywhere in the
//! cluster: the sums are asked for, as before.
use std::path::Path;

use postgres::GenericClient;

/// Beside the index, under the database folder's `.folio`.
const FILE: &str = "snapshot.quiet";
const MAGIC: &str = "FOLIOQ1";

/// The log's end now, with its timeline (a server restored to an earlier point writes a new
/// history from there), when the three tables are logged. Asked outside any transaction: an
/// error here leaves none aborted. Whether it may be asked is asked first: a standby or a role
/// the functions are revoked from would write an error to the server's log at every open and
/// every poll of the TUI.
pub fn position(c: &mut impl GenericClient) -> Option<String> {
    let askable = c
        .query_one(
            "SELECT NOT pg_is_in_recovery() \
                    AND has_function_privilege('pg_current_wal_insert_lsn()', 'EXECUTE') \
                    AND has_function_privilege('pg_walfile_name(pg_lsn)', 'EXECUTE') \
                    AND (SELECT count(*) FROM pg_class WHERE relpersistence = 'p' AND oid IN \
                           (to_regclass('knowledge_nodes'), to_regclass('knowledge_edges'), \
                            to_regclass('knowledge_fact_sources'))) = 3",
            &[],
        )
        .ok()?
        .get::<_, bool>(0);
    if !askable {
        return None;
    }
    let r = c.query_one("SELECT pg_walfile_name(l) || ' ' || l::text FROM pg_current_wal_insert_lsn() l", &[]).ok()?;
    Some(r.get(0))
}

/// Whether no other transaction had an id at this transaction's snapshot: none running below
/// its `xmax` (the snapshot's `xip`), and none given an id since its `xmax` — a transaction
/// whose commit record is written but which has not yet ended (its flush, a synchronous
/// standby) is invisible with an id at or past `xmax`. `age` of a transaction id counts from
/// the next id to be given (this transaction has none), so 0 says none was given past `xmax`.
fn none_running(c: &mut impl GenericClient) -> Result<bool, postgres::Error> {
    let r = c.query_one(
        "SELECT txid_snapshot_xmin(s) = txid_snapshot_xmax(s) \
                AND age((txid_snapshot_xmax(s) % 4294967296)::text::xid) = 0 \
         FROM txid_current_snapshot() s",
        &[],
    )?;
    Ok(r.get(0))
}

/// Whether the snapshot's index, as it is on disk, holds the tables as they are while the
/// server's log is at `position`: an open vouched for its generation there.
pub fn holds(root: &Path, position: &str) -> bool {
    matches!(super::snapshot::header(root), super::snapshot::Found::Intact(h)
        if h.tables.is_some() && vouched(root, h.generation, position))
}

/// `position` (read before this transaction's snapshot) when an open may vouch with it: no
/// other transaction had an id at the snapshot (`none_running`).
pub fn vouchable(c: &mut impl GenericClient, position: &Option<String>) -> Result<Option<String>, postgres::Error> {
    Ok(match position {
        Some(p) if none_running(c)? => Some(p.clone()),
        _ => None,
    })
}

/// Whether an open vouched for the index at `generation` at this `position`.
pub fn vouched(root: &Path, generation: u64, position: &str) -> bool {
    let Ok(text) = std::fs::read_to_string(root.join(".folio").join(FILE)) else { return false };
    text == line(generation, position)
}

/// Record that the index at `generation` holds the tables as they were at `position`. Best
/// effort: without the file, the next open asks for the sums.
pub fn vouch(root: &Path, generation: u64, position: &str) {
    let _ = crate::store::read::fsio::write_atomic(&root.join(".folio").join(FILE), line(generation, position).as_bytes());
}

fn line(generation: u64, position: &str) -> String {
    format!("{MAGIC} {generation} {position}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vouch_holds_for_its_generation_and_position_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert!(!vouched(root, 7, "000000010000000000000010 0/10191118"), "nothing vouched yet");
        vouch(root, 7, "000000010000000000000010 0/10191118");
        assert!(vouched(root, 7, "000000010000000000000010 0/10191118"));
        assert!(!vouched(root, 8, "000000010000000000000010 0/10191118"), "another generation");
        assert!(!vouched(root, 7, "000000010000000000000010 0/10191119"), "the log moved");
        assert!(!vouched(root, 7, "000000020000000000000010 0/10191118"), "another timeline");
        std::fs::write(root.join(".folio").join(FILE), "FOLIOQ1 7 000000010000000000000010 0/1019").unwrap();
        assert!(!vouched(root, 7, "000000010000000000000010 0/10191118"), "a torn file vouches for nothing");
    }
}
