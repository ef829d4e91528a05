//! Watching a store for changes made by agents while folio is open. Events are debounced
//! (an editor's write-rename-chmod burst becomes one batch) and handed over as the set of
//! paths that changed, which `Store::refresh` re-reads.
use std::path::{Path, PathBuf};
use std::time::Duration;

use notify_debouncer_full::notify::{EventKind, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};

/// How long a path must stay quiet before it is reported. The debouncer checks every quarter
/// of this, so a change is reported 100–125 ms after its last event: an editor's
/// write-rename-chmod burst takes milliseconds, and a longer wait would be much of the time
/// from an agent's last write to the change on screen (docs/benchmarks.md,
/// "Live reload figures"). A burst longer than a quarter of it arrives in several batches,
/// each refreshed on its own (a refresh costs what it re-reads, not the store's size).
pub const DEBOUNCE: Duration = Duration::from_millis(100);

/// How often a store read from elsewhere (a database) is asked whether its source changed:
/// an agent's write shows within this plus the debounce.
pub const POLL: Duration = Duration::from_millis(750);

/// Keeps the watch alive; dropping it stops watching (and polling).
pub struct StoreWatcher {
    _debouncer: Debouncer<notify_debouncer_full::notify::RecommendedWatcher, RecommendedCache>,
    _poller: Option<Poller>,
}

/// A thread re-reading a store's source into its folder every `POLL`, until dropped.
struct Poller {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Drop for Poller {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The poller of a root whose format keeps it from a source that is not a folder.
fn poll_source(root: &Path) -> Option<Poller> {
    let mut refresh = crate::store::dialect::formats().find_map(|f| f.poll_source(root))?;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stopped = stop.clone();
    std::thread::spawn(move || {
        while !stopped.load(std::sync::atomic::Ordering::Relaxed) {
            std::thread::sleep(POLL);
            if !stopped.load(std::sync::atomic::Ordering::Relaxed) {
                refresh();
            }
        }
    });
    Some(Poller { stop })
}

/// Watch `root` recursively; `on_change` receives each debounced batch of changed paths
/// (deduplicated, hidden directories such as `.git` left out) on the watcher's thread. A
/// root read from a database is also re-read from it when it changes (`Format::poll_source`),
/// so agents' writes there arrive as changed files.
pub fn watch(
    root: &Path,
    mut on_change: impl FnMut(Vec<PathBuf>) + Send + 'static,
) -> Result<StoreWatcher, notify_debouncer_full::notify::Error> {
    let root_for_filter = root.to_path_buf();
    let mut debouncer = new_debouncer(DEBOUNCE, None, move |result: DebounceEventResult| {
        let Ok(events) = result else { return };
        let mut paths: Vec<PathBuf> = Vec::new();
        for event in events {
            // Reads (ours included: previews, refreshes) are not changes; reacting to them
            // would re-read the file and loop.
            if matches!(event.kind, EventKind::Access(_)) {
                continue;
            }
            for p in &event.paths {
                if !is_hidden_under(&root_for_filter, p) && !paths.contains(p) {
                    paths.push(p.clone());
                }
            }
        }
        if !paths.is_empty() {
            on_change(paths);
        }
    })?;
    debouncer.watch(root, RecursiveMode::Recursive)?;
    Ok(StoreWatcher { _debouncer: debouncer, _poller: poll_source(root) })
}

/// Whether a path lies in a hidden file or directory below the root (`.git`, `.folio`, …).
fn is_hidden_under(root: &Path, p: &Path) -> bool {
    let rel = p.strip_prefix(root).unwrap_or(p);
    rel.components().any(|c| c.as_os_str().to_str().is_some_and(|s| s.starts_with('.') && s != "." && s != ".."))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn hidden_paths_are_filtered() {
        let root = Path::new("/s");
        assert!(is_hidden_under(root, Path::new("/s/.git/HEAD")));
        assert!(!is_hidden_under(root, Path::new("/s/notes/a.md")));
    }

    #[test]
    fn reports_a_written_file_within_a_second_or_two() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (tx, rx) = mpsc::channel();
        let _w = watch(&root, move |paths| {
            let _ = tx.send(paths);
        })
        .unwrap();
        std::thread::sleep(Duration::from_millis(100));
        std::fs::write(root.join("new.md"), "# New\n").unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        let mut seen = false;
        while std::time::Instant::now() < deadline && !seen {
            if let Ok(paths) = rx.recv_timeout(Duration::from_millis(200)) {
                seen = paths.iter().any(|p| p.ends_with("new.md"));
            }
        }
        assert!(seen, "the watcher reported new.md");
    }

    #[test]
    fn reading_a_file_is_not_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.md"), "# A\n").unwrap();
        let (tx, rx) = mpsc::channel();
        let _w = watch(&root, move |paths| {
            let _ = tx.send(paths);
        })
        .unwrap();
        std::thread::sleep(Duration::from_millis(100));
        for _ in 0..3 {
            let _ = std::fs::read_to_string(root.join("a.md")).unwrap();
        }
        assert!(rx.recv_timeout(DEBOUNCE * 3).is_err(), "reads must not trigger a reload (it would loop)");
    }
}
