//! The streaming recall engine behind the TUI overlay. Every keystroke starts a job on the
//! engine's own thread pool (`worker`) and returns at once, so typing never waits for matching;
//! the job publishes the best results so far after every block, and `tick` takes the newest in.
//! Items are built once per store (`item_list`); a filter change only recomputes which entities
//! pass; a query that extends the previous one rescores only the previous matches.
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use rayon::ThreadPool;

use super::item_list::ItemList;
use super::query::Query;
use super::text::live::{self, TextJob, TextShared, TextView};
use super::text::{MatchLine, TextRecall};
use super::worker::{self, Base, Job, Shared, View};
use super::{Hit, rank};
use crate::store::Store;

pub struct Engine {
    store: Arc<Store>,
    flags: Arc<Vec<bool>>,
    sections: bool,
    pool: Arc<ThreadPool>,
    shared: Arc<Shared>,
    /// The query of the current generation (`None`: the next query starts afresh).
    query: Option<Query>,
    generation: u64,
    /// The newest view of the current generation taken in by `tick`.
    view: Arc<View>,
    loader: Option<(Arc<AtomicBool>, JoinHandle<()>)>,
    /// Tests and screenshots: match in the caller, to the end, before returning.
    synchronous: bool,
    /// The store's text index once built (`set_text`): bodies are searched too.
    text: Option<Arc<TextRecall>>,
    text_shared: Arc<TextShared>,
    /// The text job generation of the current query (0: none asked).
    text_generation: u64,
    /// The newest text results of the current query taken in by `tick`.
    text_view: Option<Arc<TextView>>,
    /// What the overlay lists while text results are in: text hits and (with sections on) the
    /// fuzzy section hits, by score; each with its item_list id when it is a section.
    merged: Arc<Vec<(Hit, Option<u32>)>>,
}

impl Engine {
    /// `notify` is called from the engine's threads when new results are ready to be ticked in.
    pub fn new(
        store: Arc<Store>,
        flags: Arc<Vec<bool>>,
        notify: Arc<dyn Fn() + Sync + Send>,
        synchronous: bool,
    ) -> Self {
        let threads = std::thread::available_parallelism().map(|n| n.get().clamp(1, 8)).unwrap_or(2);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("recall {i}"))
            .build()
            .map(Arc::new)
            .unwrap_or_else(|_| Arc::new(rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a thread")));
        let item_list = Arc::new(ItemList::default());
        let shared = Arc::new(Shared::new(item_list.clone(), notify));
        let view = shared.current();
        if synchronous {
            pool.install(|| item_list.add_entities(&store));
        } else {
            let (store, shared) = (store.clone(), shared.clone());
            pool.spawn(move || {
                shared.item_list.add_entities(&store);
                (shared.notify)();
            });
        }
        Engine {
            store,
            flags,
            sections: false,
            pool,
            shared,
            query: None,
            generation: 0,
            view,
            loader: None,
            synchronous,
            text: None,
            text_shared: Arc::default(),
            text_generation: 0,
            text_view: None,
            merged: Arc::default(),
        }
    }

    /// The store's text index is built: from now on bodies are searched too (the current query
    /// again at once).
    pub fn set_text(&mut self, text: Arc<TextRecall>, input: &str) {
        self.text = Some(text);
        self.query = None;
        self.set_query(input);
    }

    /// Bodies are searched (the text index is in).
    pub fn has_text(&self) -> bool {
        self.text.is_some()
    }

    /// The current query's text results are in: the ranking is over fields and bodies.
    pub fn text_mode(&self) -> bool {
        self.text_view.as_ref().is_some_and(|v| v.generation == self.text_generation && self.text_generation != 0)
    }

    /// The body lines of entity `idx` that hold the query's words (the best results' only).
    pub fn match_lines(&self, idx: crate::store::model::entity::EntityIdx) -> &[MatchLine] {
        match &self.text_view {
            Some(v) if self.text_mode() => v.lines.get(&idx).map(Vec::as_slice).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Start the text job of `q` (when there is an index and the query has words).
    fn start_text(&mut self, q: &Query) {
        self.text_generation = self.text_shared.latest.fetch_add(1, Ordering::Relaxed) + 1;
        let Some(text) = self.text.clone().filter(|_| live::wanted(q)) else {
            // Nothing to search the bodies for: no text job runs for this generation.
            self.text_generation = 0;
            return;
        };
        let job = TextJob {
            generation: self.text_generation,
            query: q.clone(),
            text,
            store: self.store.clone(),
            flags: self.flags.clone(),
        };
        let (shared, notify) = (self.text_shared.clone(), self.shared.notify.clone());
        if self.synchronous {
            self.pool.install(|| live::run(&shared, job, &*notify));
        } else {
            self.pool.spawn(move || live::run(&shared, job, &*notify));
        }
    }

    /// The merged list from the newest text results and fuzzy view.
    fn merge(&mut self) {
        let Some(text) = self.text_view.clone().filter(|_| self.text_mode()) else {
            self.merged = Arc::default();
            return;
        };
        let mut merged: Vec<(Hit, Option<u32>)> =
            text.hits.iter().map(|h| (Hit { idx: h.idx, score: h.score, section: None }, None)).collect();
        if self.sections && self.fresh() {
            // A section is part of its entity's body: it carries the body's text score, so a
            // heading matching the query ranks beside (and above) its own entity.
            let body: std::collections::HashMap<_, u32> =
                text.hits.iter().map(|h| (h.idx, h.score - h.fuzzy)).collect();
            let items = self.shared.item_list.read();
            for s in &self.view.top {
                if let Some(it) = items.get(s.id as usize).filter(|it| it.section.is_some()) {
                    let score = s.score + body.get(&it.idx).copied().unwrap_or(0);
                    merged.push((Hit { idx: it.idx, score, section: it.section.clone() }, Some(s.id)));
                }
            }
            merged.sort_by(|a, b| b.0.score.cmp(&a.0.score).then(a.0.idx.cmp(&b.0.idx)));
        }
        self.merged = Arc::new(merged);
    }

    pub fn sections(&self) -> bool {
        self.sections
    }

    /// Match body sections as items too (or stop doing so).
    pub fn set_sections(&mut self, on: bool, input: &str) {
        if self.sections == on {
            return;
        }
        self.sections = on;
        self.stop_loader();
        // A new generation first: no job may hold section ids while they are removed.
        self.start_generation();
        if on {
            let stop = Arc::new(AtomicBool::new(false));
            let (store, shared, halt) = (self.store.clone(), self.shared.clone(), stop.clone());
            let load = move || shared.item_list.add_sections(&store, &halt, &*shared.notify);
            if self.synchronous {
                load();
            } else {
                self.loader = Some((stop, std::thread::spawn(load)));
            }
        } else {
            self.shared.forget_finished();
            self.shared.item_list.remove_sections();
        }
        self.query = None;
        self.set_query(input);
    }

    /// New lint results: `has:lint` follows them.
    pub fn set_flags(&mut self, flags: Arc<Vec<bool>>, input: &str) {
        self.flags = flags;
        self.shared.forget_filters();
        self.shared.forget_finished();
        if self.query.as_ref().is_some_and(|q| q.has_lint) {
            self.query = None;
            self.set_query(input);
        }
    }

    fn start_generation(&mut self) -> u64 {
        self.generation += 1;
        self.shared.latest.store(self.generation, Ordering::Relaxed);
        self.generation
    }

    fn stop_loader(&mut self) {
        if let Some((stop, handle)) = self.loader.take() {
            stop.store(true, Ordering::Relaxed);
            let _ = handle.join();
        }
    }

    /// The query changed (every keystroke): start matching it and return at once. Returns
    /// whether results changed already (always in synchronous mode).
    pub fn set_query(&mut self, input: &str) -> bool {
        let q = Query::parse(input);
        if self.query.as_ref() == Some(&q) {
            return false;
        }
        let old = self.query.take();
        // The newest results of the previous query, complete or not (not yet ticked in, maybe).
        let prev = self.shared.current();
        let prev_is_old = prev.generation == self.generation && old.is_some();
        let generation = self.start_generation();
        self.start_text(&q);
        if q.is_empty() {
            self.query = Some(q);
            self.view = Arc::new(View::empty(generation));
            self.text_view = None;
            self.merge();
            return true;
        }
        let same_filters = prev_is_old && old.as_ref().is_some_and(|o| o.filters_equal(&q) && !o.is_empty());
        // A finished query to start from: this very query (erased back to it: only items added
        // since need matching), else the narrowest one this query narrows (only its matches can
        // match).
        let finished = self.shared.finished();
        let usable = |f: &Query| !f.is_empty() && f.filters_equal(&q);
        let again = finished.iter().find(|(f, _)| usable(f) && f.text == q.text);
        let narrowed =
            finished.iter().filter(|(f, _)| usable(f) && narrows(&f.text, &q.text)).min_by_key(|(_, v)| v.matched);
        let (base, from, gain, reuse) = match (again, narrowed) {
            (Some((_, v)), _) => (Base::Keep { matches: v.all.clone(), total: v.total }, v.covered, None, None),
            (None, Some((f, v))) => {
                let pattern = rank::pattern(&q.text);
                let gain = rank::gain_bound(&f.text, &q.text, &pattern);
                let reuse = rank::reuse(&rank::pattern(&f.text), &pattern);
                (Base::Rescore { matches: v.all.clone(), total: v.total }, v.covered, gain, reuse)
            }
            (None, None) => (Base::Fresh, 0, None, None),
        };
        let first = if same_filters && again.is_none() { prev.top.iter().map(|s| s.id).collect() } else { Vec::new() };
        let job = Job {
            generation,
            query: q.clone(),
            base,
            from,
            first,
            gain,
            reuse,
            store: self.store.clone(),
            flags: self.flags.clone(),
        };
        self.query = Some(q);
        self.spawn(job);
        self.tick()
    }

    fn spawn(&self, job: Job) {
        let shared = self.shared.clone();
        if self.synchronous {
            self.pool.install(|| worker::run(&shared, job));
        } else {
            self.pool.spawn(move || worker::run(&shared, job));
        }
    }

    /// Take in the newest results; returns whether they changed. Items that arrived after the
    /// current query finished (entities built, sections read) are matched now.
    pub fn tick(&mut self) -> bool {
        let latest = self.shared.current();
        let mut changed = latest.generation == self.generation && !Arc::ptr_eq(&latest, &self.view);
        if changed {
            self.view = latest;
        }
        let text = self.text_shared.current().filter(|v| v.generation == self.text_generation);
        let text_changed = match (&text, &self.text_view) {
            (Some(new), Some(old)) => !Arc::ptr_eq(new, old),
            (Some(_), None) => true,
            _ => false,
        };
        if text_changed {
            self.text_view = text;
        }
        if text_changed || (changed && self.text_mode() && self.sections) {
            self.merge();
            changed = true;
        }
        let grown = self.shared.item_list.len() > self.view.covered;
        if self.fresh()
            && self.view.complete
            && grown
            && let Some(q) = self.query.clone().filter(|q| !q.is_empty())
        {
            let base = Base::Keep { matches: self.view.all.clone(), total: self.view.total };
            let job = Job {
                generation: self.start_generation(),
                query: q,
                base,
                from: self.view.covered,
                first: Vec::new(),
                gain: None,
                reuse: None,
                store: self.store.clone(),
                flags: self.flags.clone(),
            };
            self.spawn(job);
            // In synchronous mode the job is done: take it in.
            return self.tick() || changed;
        }
        changed
    }

    /// The results shown are those of the current query (maybe not complete yet).
    pub fn fresh(&self) -> bool {
        self.view.generation == self.generation
    }

    /// Still matching or reading sections: more results may come.
    pub fn running(&self) -> bool {
        let item_list = &self.shared.item_list;
        let unmatched = !self.input_is_empty() && (!item_list.ready() || item_list.len() > self.view.covered);
        let text_pending = self.text_generation != 0 && !self.text_mode();
        !(self.fresh() && self.view.complete)
            || unmatched
            || text_pending
            || self.loader.as_ref().is_some_and(|(_, h)| !h.is_finished())
    }

    pub fn input_is_empty(&self) -> bool {
        self.query.as_ref().is_none_or(Query::is_empty)
    }

    pub fn matched(&self) -> usize {
        if self.input_is_empty() {
            0
        } else if self.text_mode() {
            self.merged.len()
        } else {
            self.view.matched
        }
    }

    pub fn total(&self) -> usize {
        self.view.total
    }

    /// Results `start..start + count` of the ranking so far, with the highlighted positions
    /// and the haystack text. Only these rows are materialised.
    pub fn results(&self, start: usize, count: usize) -> Vec<(Hit, Vec<u32>, String)> {
        let end = (start + count).min(self.matched());
        if start >= end {
            return Vec::new();
        }
        let text = self.query.as_ref().map(|q| q.text.as_str()).unwrap_or("");
        let items = self.shared.item_list.read();
        if self.text_mode() {
            // The highlight of the fields, as the text ranking scored them.
            let fuzzy = self.text.as_ref().map_or_else(|| text.replace('"', " "), |t| t.field_text(text));
            return self.merged[start..end.min(self.merged.len())]
                .iter()
                .map(|(hit, id)| {
                    let item = match id.and_then(|id| items.get(id as usize)) {
                        Some(it) => it.clone(),
                        None => super::RecallItem::entity(hit.idx, self.store.entity(hit.idx)),
                    };
                    (hit.clone(), rank::indices(&item, &fuzzy), item.text())
                })
                .collect();
        }
        let ranked: &[rank::Scored] = if end <= self.view.top.len() || !self.view.complete {
            &self.view.top
        } else {
            self.view.sorted(&items, &rank::pattern(text))
        };
        ranked[start.min(ranked.len())..end.min(ranked.len())]
            .iter()
            .filter_map(|s| {
                let it = items.get(s.id as usize)?;
                let hit = Hit { idx: it.idx, score: s.score, section: it.section.clone() };
                Some((hit, rank::indices(it, text), it.text()))
            })
            .collect()
    }

    /// The n-th result.
    pub fn get(&self, n: usize) -> Option<Hit> {
        self.results(n, 1).into_iter().next().map(|(h, _, _)| h)
    }
}

/// Whether every item matching `new` also matches `old`, so only `old`'s matches need
/// rescoring: `new` extends `old`, and neither a negation (`!x` matches more as it grows), an
/// escape, an anchor nor a quote is being extended.
fn narrows(old: &str, new: &str) -> bool {
    !old.is_empty()
        && new.starts_with(old)
        && !new.split_whitespace().any(|w| w.starts_with('!'))
        && !old.ends_with(['\\', '$', '^', '\'', '!'])
}

impl Drop for Engine {
    fn drop(&mut self) {
        // Jobs still queued or running see a newer generation and stop.
        self.shared.latest.store(u64::MAX, Ordering::Relaxed);
        self.text_shared.latest.store(u64::MAX, Ordering::Relaxed);
        if let Some((stop, _)) = &self.loader {
            stop.store(true, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settle(e: &mut Engine) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while e.running() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(1));
            e.tick();
        }
    }

    #[test]
    fn streams_the_same_ranking_as_the_headless_path() {
        let dir = tempfile::tempdir().unwrap();
        for (name, title) in [("a", "Gross margin"), ("b", "Marginal cost"), ("c", "Churn"), ("d", "Margin call")] {
            std::fs::write(dir.path().join(format!("{name}.md")), format!("---\ntitle: {title}\n---\nbody\n")).unwrap();
        }
        let store = Arc::new(Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into()));
        for sync in [true, false] {
            let mut e = Engine::new(store.clone(), Arc::new(Vec::new()), Arc::new(|| {}), sync);
            e.set_query("marg");
            settle(&mut e);
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
            settle(&mut e);
            assert_eq!(e.matched(), 3, "all but Churn");
        }
    }

    /// Typing, erasing, filters and sections, keystroke by keystroke over more items than one
    /// block: after every change the settled streaming ranking (past the kept top, too) equals
    /// the headless one.
    #[test]
    fn every_keystroke_settles_on_the_headless_ranking() {
        let dir = tempfile::tempdir().unwrap();
        let words = ["gross", "margin", "churn", "cohort", "ledger", "refund", "budget", "region"];
        for i in 0..6_000 {
            let (a, b) = (words[i % 8], words[(i / 8) % 8]);
            // Descriptions give most items scattered, low-scoring fuzzy matches too.
            let description: Vec<&str> = (0..6).map(|k| words[(i * 7 + k * 3 + i / 5) % 8]).collect();
            let text = format!(
                "---\ntitle: {a} {b} {i}\ntype: {}\ntags: [{}]\ndescription: {}\n---\n# T\n\n## {b} notes\n{a} text\n",
                ["metric", "note"][i % 2],
                words[(i / 3) % 8],
                description.join(" x")
            );
            std::fs::write(dir.path().join(format!("e{i}.md")), text).unwrap();
        }
        let store = Arc::new(Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into()));
        let mut e = Engine::new(store.clone(), Arc::new(Vec::new()), Arc::new(|| {}), false);
        let check = |e: &mut Engine, input: &str| {
            e.set_query(input);
            settle(e);
            let q = Query::parse(input);
            let want = crate::recall::recall_with(&store, &q, &[], e.sections(), usize::MAX);
            let got: Vec<Hit> = e.results(0, usize::MAX / 2).into_iter().map(|(h, _, _)| h).collect();
            assert_eq!(e.matched(), want.len(), "{input:?}");
            assert!(got == want, "{input:?}: the streamed ranking differs from the headless one");
        };
        for input in [
            "g", "gr", "gro", "gross", "gross m", "gross ma", "gross m", "gross", "gr", "grO", "r", "re", "reg 1",
            "mar !ch",
        ] {
            check(&mut e, input);
            if input == "gross ma" {
                assert!(e.view.all.iter().any(|s| !s.exact), "matches far below the best are only tested");
            }
        }
        for input in ["kind:metric", "kind:metric c", "kind:metric co", "tag:ledger co", "co"] {
            check(&mut e, input);
        }
        e.set_sections(true, "notes");
        for input in ["notes", "notes gr", "notes gro", "ledger"] {
            check(&mut e, input);
        }
        e.set_sections(false, "ledger");
        check(&mut e, "ledger r");
    }

    /// With the text index in, the overlay ranks fields and bodies as `folio recall --text` does,
    /// streamed or not, and a section hit carries its entity's body score.
    #[test]
    fn with_the_text_index_bodies_rank_as_the_headless_text_search() {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            ("a", "Gross margin", "## Notes\nnothing about it\n"),
            ("b", "Refunds", "## Exif\nParse exif with pillow, then pillow again.\n"),
            ("c", "Pillow", "## Setup\nno body words\n"),
            ("d", "Images", "## Exif\nexif tags only\n"),
        ];
        for (name, title, body) in files {
            std::fs::write(dir.path().join(format!("{name}.md")), format!("---\ntitle: {title}\n---\n{body}")).unwrap();
        }
        let store = Arc::new(Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into()));
        let text = Arc::new(TextRecall::build(&store));
        for sync in [true, false] {
            let mut e = Engine::new(store.clone(), Arc::new(Vec::new()), Arc::new(|| {}), sync);
            e.set_query("pillow");
            settle(&mut e);
            assert!(!e.text_mode() && !e.has_text());
            e.set_text(text.clone(), "pillow");
            settle(&mut e);
            assert!(e.text_mode(), "synchronous: {sync}");
            let got: Vec<_> = e.results(0, 10).into_iter().map(|(h, _, _)| h.idx).collect();
            let want: Vec<_> =
                text.search_as_typed(&store, &Query::parse("pillow"), &[], 10).iter().map(|h| h.idx).collect();
            assert_eq!(got, want, "synchronous: {sync}");
            assert!(got.contains(&1), "a body-only match is found");
            let b = store.find("b").unwrap();
            assert_eq!(e.match_lines(b)[0].text, "Parse exif with pillow, then pillow again.");
            // Sections: the `## Exif` heading of b ranks above its own entity.
            e.set_sections(true, "exif");
            settle(&mut e);
            let hits: Vec<Hit> = e.results(0, 10).into_iter().map(|(h, _, _)| h).collect();
            let section = hits.iter().position(|h| h.idx == b && h.section.is_some()).expect("b's section");
            let entity = hits.iter().position(|h| h.idx == b && h.section.is_none()).expect("b");
            assert!(section < entity, "{hits:?}");
            // An empty query asks the bodies nothing.
            e.set_query("");
            assert_eq!((e.matched(), e.text_mode()), (0, false));
        }
    }
}
