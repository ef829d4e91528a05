//! The streaming recall engine behind the TUI overlay: a `nucleo::Nucleo` matching on its own
//! threads while items are injected from another, so typing never waits for matching. The
//! caller reparses on every keystroke and ticks when nucleo reports progress; a snapshot holds
//! the ranked matches so far.
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use nucleo::Nucleo;
use nucleo::pattern::{CaseMatching, Normalization};

use super::item::RecallItem;
use super::query::Query;
use super::{Hit, rank};
use crate::store::Store;

/// How long one tick may wait for the matcher, in milliseconds: short enough for a frame.
const TICK_MS: u64 = 8;

pub struct Engine {
    nucleo: Nucleo<RecallItem>,
    store: Arc<Store>,
    flags: Arc<Vec<bool>>,
    sections: bool,
    /// The query the items were injected for (filters) and the pattern parsed from (text).
    query: Option<Query>,
    injector: Option<(Arc<AtomicBool>, JoinHandle<()>)>,
    /// Tests and screenshots: inject in the caller and tick until matching is done.
    synchronous: bool,
    running: bool,
}

impl Engine {
    /// `notify` is called from nucleo's threads when new results are ready to be ticked in.
    pub fn new(
        store: Arc<Store>,
        flags: Arc<Vec<bool>>,
        notify: Arc<dyn Fn() + Sync + Send>,
        synchronous: bool,
    ) -> Self {
        let threads = std::thread::available_parallelism().map(|n| n.get().clamp(1, 8)).unwrap_or(2);
        Engine {
            nucleo: Nucleo::new(rank::config(), notify, Some(threads), 1),
            store,
            flags,
            sections: false,
            query: None,
            injector: None,
            synchronous,
            running: false,
        }
    }

    pub fn sections(&self) -> bool {
        self.sections
    }

    /// Match body sections as items too (or stop doing so).
    pub fn set_sections(&mut self, on: bool, input: &str) {
        if self.sections != on {
            self.sections = on;
            self.query = None;
            self.set_query(input);
        }
    }

    /// New lint results: `has:lint` follows them.
    pub fn set_flags(&mut self, flags: Arc<Vec<bool>>, input: &str) {
        self.flags = flags;
        if self.query.as_ref().is_some_and(|q| q.has_lint) {
            self.query = None;
            self.set_query(input);
        }
    }

    /// The query changed (every keystroke). Filters that changed restart the item stream;
    /// text alone only reparses the pattern, incrementally when it was extended. Returns
    /// whether the first tick already brought new results.
    pub fn set_query(&mut self, input: &str) -> bool {
        let q = Query::parse(input);
        let refill = match &self.query {
            // An empty query injected nothing; the first real one must.
            Some(old) => !old.filters_equal(&q) || old.is_empty() != q.is_empty(),
            None => true,
        };
        let append = match &self.query {
            Some(old) if !refill => q.text.starts_with(&old.text),
            _ => false,
        };
        self.nucleo.pattern.reparse(0, &q.text, CaseMatching::Smart, Normalization::Smart, append);
        if refill {
            self.refill(&q);
        }
        self.query = Some(q);
        self.tick()
    }

    fn refill(&mut self, q: &Query) {
        if let Some((cancel, handle)) = self.injector.take() {
            cancel.store(true, Ordering::Relaxed);
            let _ = handle.join();
        }
        self.nucleo.restart(true);
        if q.is_empty() {
            return;
        }
        let injector = self.nucleo.injector();
        let (store, flags, sections, query) = (self.store.clone(), self.flags.clone(), self.sections, q.clone());
        let cancel = Arc::new(AtomicBool::new(false));
        let stop = cancel.clone();
        let job = move || {
            super::for_each_item(&store, &query, &flags, sections, |item| {
                injector.push(item, |item, cols| cols[0] = item.haystack.clone());
                !stop.load(Ordering::Relaxed)
            });
        };
        if self.synchronous {
            job();
        } else {
            self.injector = Some((cancel, std::thread::spawn(job)));
        }
    }

    /// Take in what the matcher has finished; returns whether the results changed.
    pub fn tick(&mut self) -> bool {
        let mut status = self.nucleo.tick(TICK_MS);
        let mut changed = status.changed;
        while self.synchronous && status.running {
            status = self.nucleo.tick(TICK_MS);
            changed |= status.changed;
        }
        let injecting = self.injector.as_ref().is_some_and(|(_, h)| !h.is_finished());
        self.running = status.running || injecting;
        changed
    }

    /// Still matching or injecting: more results may come.
    pub fn running(&self) -> bool {
        self.running
    }

    pub fn input_is_empty(&self) -> bool {
        self.query.as_ref().is_none_or(Query::is_empty)
    }

    pub fn matched(&self) -> usize {
        if self.input_is_empty() { 0 } else { self.nucleo.snapshot().matched_item_count() as usize }
    }

    pub fn total(&self) -> usize {
        self.nucleo.snapshot().item_count() as usize
    }

    /// Results `range` of the ranking so far.
    pub fn results(&self, start: usize, count: usize) -> Vec<(Hit, Vec<u32>, String)> {
        let snap = self.nucleo.snapshot();
        let end = (start + count).min(self.matched());
        if start >= end {
            return Vec::new();
        }
        let text = self.query.as_ref().map(|q| q.text.as_str()).unwrap_or("");
        snap.matched_items(start as u32..end as u32)
            .map(|item| {
                let it = item.data;
                let hit = Hit { idx: it.idx, score: 0, section: it.section.clone() };
                (hit, rank::indices(it, text), it.text())
            })
            .collect()
    }

    /// The n-th result.
    pub fn get(&self, n: usize) -> Option<Hit> {
        self.results(n, 1).into_iter().next().map(|(h, _, _)| h)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Some((cancel, _)) = &self.injector {
            cancel.store(true, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::dialect::DialectKind;

    #[test]
    fn streams_the_same_ranking_as_the_headless_path() {
        let dir = tempfile::tempdir().unwrap();
        for (name, title) in [("a", "Gross margin"), ("b", "Marginal cost"), ("c", "Churn"), ("d", "Margin call")] {
            std::fs::write(dir.path().join(format!("{name}.md")), format!("---\ntitle: {title}\n---\nbody\n")).unwrap();
        }
        let store = Arc::new(Store::load(dir.path(), DialectKind::Vault, "test".into()));
        for sync in [true, false] {
            let mut e = Engine::new(store.clone(), Arc::new(Vec::new()), Arc::new(|| {}), sync);
            e.set_query("marg");
            while e.running() {
                e.tick();
            }
            let streamed: Vec<_> = e.results(0, 10).into_iter().map(|(h, _, _)| h.idx).collect();
            let headless: Vec<_> = crate::recall::recall(&store, "marg", 10).into_iter().map(|h| h.idx).collect();
            assert_eq!(streamed.len(), 3);
            assert_eq!(streamed, headless, "synchronous: {sync}");
            let (_, indices, text) = &e.results(0, 1)[0];
            let highlighted: String = indices.iter().map(|&i| text.chars().nth(i as usize).unwrap()).collect();
            assert_eq!(highlighted.to_lowercase(), "marg");
            e.set_query("");
            assert_eq!(e.matched(), 0);
            // Typing again after clearing finds the items again.
            e.set_query("m");
            while e.running() {
                e.tick();
            }
            assert_eq!(e.matched(), 3, "all but Churn");
        }
    }
}
