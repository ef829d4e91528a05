//! A decision's commit, settled. folio journals a decision's files (mirror, log, undo
//! record) and commits the database's transaction as the journal's last step
//! (`storage`): a commit the database refuses rolls the files back. The gaps, each settled
//! here by asking the server what became of the transaction (`txid_status`):
//! - the connection is lost during the commit: the server may have committed or not; a new
//!   connection asks at once, and when none can be made (or the server has not finished),
//!   the decision stays pending as in the next case;
//! - folio stops (killed, a crash), or its disk fails, after the server committed and before
//!   the journal's own commit mark: the journal left behind would be rolled back as an
//!   unfinished write. Before the commit a marker names the transaction and the changeset;
//!   the next open (or the next write) asks the server and, when it committed, marks the
//!   journal committed so that recovery finishes the decision (log line, undo record)
//!   instead of rolling it back.
use std::path::PathBuf;

use postgres::Client;
use serde::{Deserialize, Serialize};

use super::conn::Locator;
use crate::store::write::journal;
use crate::store::write::state::State;

/// The transaction a changeset's files wait on.
#[derive(Debug, Serialize, Deserialize)]
pub struct Pending {
    pub txid: i64,
    pub changeset: String,
}

fn path(state: &State) -> PathBuf {
    state.dir.join("pg-pending-commit.json")
}

impl Pending {
    /// Written (and synced) before the commit is sent.
    pub fn write(&self, state: &State) -> std::io::Result<()> {
        let bytes = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        crate::store::read::fsio::write_atomic(&path(state), &bytes)
    }

    pub fn clear(state: &State) {
        let _ = std::fs::remove_file(path(state));
    }

    /// Whether a decision still waits on the server's answer.
    pub fn waiting(state: &State) -> bool {
        path(state).exists()
    }

    fn read(state: &State) -> Option<Pending> {
        serde_json::from_slice(&std::fs::read(path(state)).ok()?).ok()
    }
}

/// What the server says of transaction `txid`: `committed`, `aborted`, `in progress`, or
/// None when it is too old to know. A backend that lost its client may still be rolling
/// back: asked again for a few seconds while it is `in progress`.
pub fn status(c: &mut Client, at: &Locator, txid: i64) -> Result<Option<String>, String> {
    for _ in 0..50 {
        let s: Option<String> =
            c.query_one("SELECT txid_status($1)", &[&txid]).map(|r| r.get(0)).map_err(|e| at.explain(&e))?;
        if s.as_deref() != Some("in progress") {
            return Ok(s);
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    Ok(Some("in progress".to_string()))
}

/// On open, before the mirror is brought up to the database: a decision whose commit the
/// server took while folio did not live to mark it is marked committed, for recovery to
/// finish; one the server did not take is left to recovery's rollback.
pub fn on_open(c: &mut Client, at: &Locator, state: &State) -> Result<(), String> {
    let Some(p) = Pending::read(state) else { return Ok(()) };
    let left = journal::leftover(state).map_err(|e| format!("{}: {e}", state.dir.display()))?;
    let waiting = matches!(&left, Some((id, false)) if *id == p.changeset);
    if waiting {
        match status(c, at, p.txid)?.as_deref() {
            Some("committed") => {
                journal::commit_leftover(state, &p.changeset).map_err(|e| format!("{}: {e}", state.dir.display()))?;
            }
            // Not known yet: asked again on the next open.
            Some("in progress") => return Ok(()),
            _ => {}
        }
    }
    Pending::clear(state);
    Ok(())
}
