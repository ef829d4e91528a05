//! Watching a store for changes made by agents while folio is open. Events are debounced
//! (an editor's write-rename-chmod burst becomes one batch) and handed over as the set of
//! paths that changed, which `Store::refresh` re-reads. While an agent keeps writing, batches
//! are handed over at most every `BURST_GAP`, so a burst costs a refresh per gap rather than
//! one per file (what a refresh and its relint cost beyond the files read is paid per batch).
use std::path::{Path, PathBuf};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use notify_debouncer_full::notify::{EventKind, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};

/// How long a path must stay quiet before it is reported. The debouncer checks every quarter
/// of this, so a change is reported 100–125 ms after its last event: an editor's
/// write-rename-chmod burst takes milliseconds, and a longer wait would be much of the time
/// from an agent's last write to the change on screen (docs/benchmarks.md,
/// "Live reload figures"). A burst longer than a quarter of it arrives in several batches,
/// each refreshed on its own (a refresh costs what it re-reads, not the store's size).
pub const DEBOUNCE: Duration = Duration::from_millis(100);

/// During a burst, the least time between two batches handed over; a change after a quiet
/// spell is handed over at once (docs/benchmarks.md, "Round: issue 44", "Live reload").
pub const BURST_GAP: Duration = Duration::from_millis(500);

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

/// The poller of a root whose format keeps it from a source that is not a folder; what it
/// finds changed goes to `report`.
fn poll_source(root: &Path, report: impl FnMut(Vec<PathBuf>) + Send + 'static) -> Option<Poller> {
    let mut refresh = crate::store::dialect::formats().find_map(|f| f.poll_source(root))?;
    let mut report = report;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stopped = stop.clone();
    std::thread::spawn(move || {
        while !stopped.load(std::sync::atomic::Ordering::Relaxed) {
            std::thread::sleep(POLL);
            if !stopped.load(std::sync::atomic::Ordering::Relaxed) {
                let changed = refresh();
                if !changed.is_empty() {
                    report(changed);
                }
            }
        }
    });
    Some(Poller { stop })
}

/// Watch `root` recursively; `on_change` receives each debounced batch of changed paths
/// (deduplicated, hidden directories such as `.git` left out) on the watcher's thread. A
/// root read from a database is also re-read from it when it changes (`Format::poll_source`),
/// and the entities the poller found changed arrive as changed paths too.
pub fn watch(
    root: &Path,
    on_change: impl FnMut(Vec<PathBuf>) + Send + 'static,
) -> Result<StoreWatcher, notify_debouncer_full::notify::Error> {
    let root_for_filter = root.to_path_buf();
    // Shared with the poller: a database's changes come from it, not from files.
    let on_change = std::sync::Arc::new(std::sync::Mutex::new(paced(BURST_GAP, on_change)));
    let polled = on_change.clone();
    let on_change = move |paths| (on_change.lock().unwrap_or_else(|e| e.into_inner()))(paths);
    let polled = move |paths| (polled.lock().unwrap_or_else(|e| e.into_inner()))(paths);
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
    Ok(StoreWatcher { _debouncer: debouncer, _poller: poll_source(root, polled) })
}

/// `deliver` called with the batches given to the returned function, no two calls closer than
/// `gap`: a batch arriving sooner waits on a thread of its own, merged with any that follow,
/// until the gap has passed. The thread ends when the returned function is dropped.
fn paced(gap: Duration, mut deliver: impl FnMut(Vec<PathBuf>) + Send + 'static) -> impl FnMut(Vec<PathBuf>) + Send {
    let (tx, rx) = std::sync::mpsc::channel::<Vec<PathBuf>>();
    std::thread::spawn(move || {
        let mut pending: Vec<PathBuf> = Vec::new();
        let mut last: Option<Instant> = None;
        loop {
            let due = last.map(|t| t + gap).filter(|_| !pending.is_empty());
            let received = match due {
                None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
                Some(due) => rx.recv_timeout(due.saturating_duration_since(Instant::now())),
            };
            match received {
                Ok(batch) => {
                    for p in batch {
                        if !pending.contains(&p) {
                            pending.push(p);
                        }
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    if !pending.is_empty() {
                        deliver(pending);
                    }
                    return;
                }
            }
            if !pending.is_empty() && last.is_none_or(|t| t.elapsed() >= gap) {
                deliver(std::mem::take(&mut pending));
                last = Some(Instant::now());
            }
        }
    });
    move |batch| {
        let _ = tx.send(batch);
    }
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
    fn a_burst_is_handed_over_in_batches_no_closer_than_the_gap() {
        let (tx, rx) = mpsc::channel();
        let gap = Duration::from_millis(300);
        let mut send = paced(gap, move |paths| {
            let _ = tx.send((Instant::now(), paths));
        });
        // The first change after a quiet spell goes at once; the next ones wait and merge.
        for i in 0..6 {
            send(vec![PathBuf::from(format!("f{i}.md"))]);
            std::thread::sleep(Duration::from_millis(40));
        }
        send(vec![PathBuf::from("f0.md")]);
        drop(send);
        let batches: Vec<(Instant, Vec<PathBuf>)> = rx.iter().collect();
        assert_eq!(batches[0].1, [PathBuf::from("f0.md")]);
        let mut all: Vec<PathBuf> = batches.iter().flat_map(|(_, b)| b.clone()).collect();
        assert_eq!(all.len(), 7, "each path once per batch: {batches:?}");
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 6, "nothing lost");
        for w in batches.windows(2) {
            // Dropping the sender hands over what waits at once; every other pair keeps the gap.
            if w[1].0 != batches.last().unwrap().0 {
                assert!(w[1].0 - w[0].0 >= gap, "batches {:?} apart", w[1].0 - w[0].0);
            }
        }
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
