//! Whether the database can have changed since an open, asked of the server's transaction
//! counter rather than of the three tables: every transaction that writes a row is given a
//! transaction id, so while no id has been given since, no row has changed. The tables' sums
//! (`rows::tables`) scan 100k nodes and 150k edges — ≈ 190 ms of the server's CPU on every
//! open of the 100k brain, on the two cores folio decodes its cache on (docs/benchmarks.md,
//! "Thirty-fifth session"). The position is the next id to be given, with the timeline (a
//! server restored to an earlier point writes a new history from there). The end of the
//! write-ahead log was the position first, but the server appends to it with no transaction:
//! a record of the running transactions within 15 s of any write, checkpoints — each made the
//! next open sum the tables again (docs/benchmarks.md, "Fortieth session").
//!
//! An open vouches for a snapshot generation at a position (`vouch`, in `snapshot.quiet`
//! beside the index) when the position was read before its transaction's snapshot was taken
//! and no other transaction had an id at that snapshot (`none_running`): every id given before
//! the position was read had ended by the snapshot and its rows are in it, and any given
//! after it moves the position. A later open that finds the position where it was, and the
//! index at that generation, knows the sums without asking for them. A standby, an unlogged
//! table, a server that will not say, or any transaction given an id anywhere in the cluster:
//! the sums are asked for, as before.
//!
//! A decision vouches too (`before_decision`, `after_decision`): when the index was vouched
//! for at the position as its transaction began, and no transaction but its own was given an
//! id from then until after its commit, the only rows changed since are its own, which the
//! snapshot took after the commit. The next `review list` then asks nothing of the tables.
use std::path::Path;

use postgres::GenericClient;

/// Beside the index, under the database folder's `.folio`.
const FILE: &str = "snapshot.quiet";
const MAGIC: &str = "FOLIOQ2";

/// The position now (the timeline and the next transaction id), when the three tables are
/// logged. Asked outside any transaction: an error here leaves none aborted. Whether it may be
/// asked is asked first: a standby or a role the functions are revoked from would write an
/// error to the server's log at every open and every poll of the TUI.
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
    Some(c.query_one(POSITION, &[]).ok()?.get(0))
}

/// The position now, once `position` said it may be asked: the timeline (the first eight
/// digits of the log file's name) and the next id to be given — the newest snapshot's `xmax`
/// and how many ids were given past it (`age` counts from the next id).
const POSITION: &str = "SELECT substr(pg_walfile_name(pg_current_wal_insert_lsn()), 1, 8) || ' ' || \
       (txid_snapshot_xmax(s) + age((txid_snapshot_xmax(s) % 4294967296)::text::xid))::text \
     FROM txid_current_snapshot() s";

/// What a decision's first statement found (`before_decision`): the next transaction id to be
/// given then, which its own must be.
#[derive(Debug, Clone, Copy)]
pub struct Decision {
    next_xid: i64,
}

/// Asked as the first statement of a decision's transaction, when `position` (asked just
/// before it, outside it) found the index vouched for at `vouched`: whether no transaction has
/// an id and none was given one since — the rows are then the snapshot's. With none running
/// and none given past the snapshot's `xmax`, the next id is its `xmax`.
/// A trigger or rule on the three tables (other than the notifying one folio documents,
/// `scripts/opendray-notify.sql`) could write rows the decision does not read back: no vouch.
pub fn before_decision(tx: &mut impl GenericClient, vouched: &str) -> Result<Option<Decision>, postgres::Error> {
    let r = tx.query_one(
        "WITH t(oid) AS (VALUES (to_regclass('knowledge_nodes')), (to_regclass('knowledge_edges')), \
                                (to_regclass('knowledge_fact_sources'))) \
         SELECT substr(pg_walfile_name(pg_current_wal_insert_lsn()), 1, 8) || ' ' || txid_snapshot_xmax(s)::text, \
                txid_snapshot_xmin(s) = txid_snapshot_xmax(s) \
                AND age((txid_snapshot_xmax(s) % 4294967296)::text::xid) = 0 \
                AND NOT EXISTS (SELECT 1 FROM pg_trigger g JOIN t ON g.tgrelid = t.oid \
                                WHERE NOT g.tgisinternal AND g.tgname <> 'folio_notify') \
                AND NOT EXISTS (SELECT 1 FROM pg_rewrite r JOIN t ON r.ev_class = t.oid), \
                txid_snapshot_xmax(s) \
         FROM txid_current_snapshot() s",
        &[],
    )?;
    let (at, quiet, next_xid): (String, bool, i64) = (r.get(0), r.get(1), r.get(2));
    Ok((at == vouched && quiet).then_some(Decision { next_xid }))
}

/// After the decision `before` found quiet committed as transaction `ours`: the position now,
/// when no transaction but `ours` was given an id since (`ours` was the next id then, the next
/// id now is the one after it) and none runs. The position is read first: an id given before
/// it was read is in the second statement's snapshot.
pub fn after_decision(c: &mut impl GenericClient, before: Decision, ours: i64) -> Option<String> {
    if ours != before.next_xid {
        return None;
    }
    let at: String = c.query_one(POSITION, &[]).ok()?.get(0);
    let alone = c
        .query_one(
            "SELECT txid_snapshot_xmin(s) = txid_snapshot_xmax(s) AND txid_snapshot_xmax(s) = $1 \
                    AND age((txid_snapshot_xmax(s) % 4294967296)::text::xid) = 0 \
             FROM txid_current_snapshot() s",
            &[&(ours + 1)],
        )
        .ok()?
        .get::<_, bool>(0);
    alone.then_some(at)
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
        assert!(!vouched(root, 7, "00000001 863"), "nothing vouched yet");
        vouch(root, 7, "00000001 863");
        assert!(vouched(root, 7, "00000001 863"));
        assert!(!vouched(root, 8, "00000001 863"), "another generation");
        assert!(!vouched(root, 7, "00000001 864"), "an id was given since");
        assert!(!vouched(root, 7, "00000002 863"), "another timeline");
        std::fs::write(root.join(".folio").join(FILE), "FOLIOQ2 7 00000001 86").unwrap();
        assert!(!vouched(root, 7, "00000001 863"), "a torn file vouches for nothing");
        std::fs::write(root.join(".folio").join(FILE), "FOLIOQ1 7 00000001 863\n").unwrap();
        assert!(!vouched(root, 7, "00000001 863"), "an earlier build's vouch, of the log's end, vouches for nothing");
    }
}
