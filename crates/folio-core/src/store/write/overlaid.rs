//! The store as a plan's writes left it, handed from the write to whoever shows the store
//! next (`Applied::overlaid`); built by `Store::overlaid` (`overlay`).
use crate::store::Store;
use crate::store::read::relink::RefreshReport;

/// The store as a plan's writes left it (`Store::overlaid`), and what they changed in it.
pub struct Overlaid {
    pub store: Store,
    pub report: RefreshReport,
}

impl std::fmt::Debug for Overlaid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Overlaid").field("entities", &self.store.entities.len()).field("report", &self.report).finish()
    }
}

impl Overlaid {
    /// The store as read after the write: the overlaid store refreshed on `paths` (the files
    /// written, the catalogs and the log), which costs only what changed since the overlay
    /// (the log; a file an agent changed meanwhile), not the writes' own relinking a second
    /// time. The report is against the store the plan was made on, as `Store::refreshed` on
    /// that store reports it.
    pub fn refreshed<P: AsRef<std::path::Path>>(&self, paths: &[P]) -> (Store, RefreshReport) {
        let (fresh, again) = self.store.refreshed(paths);
        let mut report = RefreshReport {
            parsed: self.report.parsed + again.parsed,
            relinked_all: self.report.relinked_all || again.relinked_all,
            ..RefreshReport::default()
        };
        let before = &self.report;
        let overlaid = before.changed.iter().chain(&before.added).chain(&before.removed);
        // A file the writes touched: what the store before them had, against what it has now.
        for path in overlaid {
            let had = !before.added.contains(path);
            match (had, fresh.has_file(path)) {
                (true, true) => report.changed.push(path.clone()),
                (false, true) => report.added.push(path.clone()),
                (true, false) => report.removed.push(path.clone()),
                (false, false) => {}
            }
        }
        // Files only the refresh re-read (the log) are as it found them.
        let unseen =
            |p: &&String| !before.changed.contains(p) && !before.added.contains(p) && !before.removed.contains(p);
        report.changed.extend(again.changed.iter().filter(unseen).cloned());
        report.added.extend(again.added.iter().filter(unseen).cloned());
        report.removed.extend(again.removed.iter().filter(unseen).cloned());
        (fresh, report)
    }
}
