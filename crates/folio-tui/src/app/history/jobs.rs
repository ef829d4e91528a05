//! The history pane's disk work, off the UI thread: the entity's history, its versions sent as
//! the walk finds them and then whole with its blame; the diff a restore would make (the
//! changeset travels with the confirm dialog, so what is confirmed is what was shown, checked
//! against the digest of the file as it was then), and writing it through the changeset path.
use std::sync::Arc;
use std::time::Duration;

use super::HistoryData;
use crate::app::event::{Event, Written};
use crate::app::outbox::Outbox;
use folio_core::store::Store;
use folio_core::store::history::{self, restore};
use folio_core::store::model::entity::EntityIdx;
use folio_core::store::write::changeset::{Changeset, WriteOptions};

/// How often the pane is sent the versions found so far (after the first, at once).
const REPORT_EVERY: Duration = Duration::from_millis(50);

/// Read the entity's history for the read numbered `asked`, sending `HistoryFound` as versions
/// are found, then `HistoryRead`.
pub fn read(store: &Store, idx: EntityIdx, asked: u64, tx: &Outbox) {
    let path = store.entity(idx).path.clone();
    let mut report = |history: history::History| {
        let data = Arc::new(HistoryData { history, blame: Vec::new() });
        let _ = tx.send(Event::HistoryFound { asked, data });
    };
    let progress = history::Progress { every: REPORT_EVERY, report: &mut report };
    let data =
        history::of_entity_reporting(store, idx, Some(progress)).map_err(|e| format!("{path}: {e}")).map(|history| {
            let blame = history::blame::blame(&history);
            Arc::new(HistoryData { history, blame })
        });
    let _ = tx.send(Event::HistoryRead { asked, data });
}

/// What restoring version `rev` of the entity would write: a title, the diff, the changeset.
pub fn preview(
    store: &Store,
    idx: EntityIdx,
    rev: &str,
    by: &str,
) -> Result<(String, Vec<String>, Box<Changeset>), String> {
    let path = store.entity(idx).path.clone();
    let h = history::of_entity(store, idx).map_err(|e| format!("{path}: {e}"))?;
    match restore::plan(store, &h, rev, by)? {
        Some(cs) => {
            let diff = cs.diff(store).lines().map(str::to_string).collect();
            Ok((format!("Restore {path} to version {rev}?"), diff, Box::new(cs)))
        }
        None => Err(format!("{path} already holds version {rev}; nothing to change")),
    }
}

/// Write the restore; what was done, the files to reload and the digests written.
pub fn apply(store: &Store, cs: Changeset) -> Result<Written, String> {
    let restored: Vec<String> = cs.writes().into_iter().map(|w| w.path).collect();
    let applied = store.apply(cs, &WriteOptions::default()).map_err(|e| e.to_string())?;
    let text = status(&restored, &applied.files);
    let written: Vec<String> = applied.files.iter().chain(std::iter::once(&applied.log)).cloned().collect();
    let own = crate::app::platform::own_writes::fingerprints(&store.root, &written);
    Ok((text, applied.files.iter().map(|f| store.abs_path(f)).collect(), own))
}

/// The status line of a restore: the entity restored, then what else the write added (the
/// shared review state's git rules, on a store's first write in a work tree), never called
/// restored.
fn status(restored: &[String], files: &[String]) -> String {
    let also: Vec<&str> = files.iter().filter(|f| !restored.contains(f)).map(String::as_str).collect();
    let mut text = format!("restored {} (u undoes it)", restored.join(", "));
    if !also.is_empty() {
        text.push_str(&format!(" · also wrote {}", also.join(", ")));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::status;

    #[test]
    fn a_restore_names_the_entity_restored_and_what_else_it_wrote_apart() {
        let files = |f: &[&str]| f.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let restored = files(&["apis/refunds.md"]);
        assert_eq!(status(&restored, &restored), "restored apis/refunds.md (u undoes it)");
        let written = files(&[".folio/.gitignore", ".folio/.gitattributes", ".gitattributes", "apis/refunds.md"]);
        assert_eq!(
            status(&restored, &written),
            "restored apis/refunds.md (u undoes it) · also wrote .folio/.gitignore, .folio/.gitattributes, .gitattributes"
        );
    }
}
