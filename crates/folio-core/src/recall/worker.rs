//! The background half of the streaming engine: one job per query generation scores candidate
//! items in blocks on the engine's thread pool and publishes a `View` (the best results so far,
//! the match count) after every block, so the first results appear after a few milliseconds
//! while matching continues. A newer generation makes older jobs stop at the next item.
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;

use nucleo::pattern::Pattern;

use super::item_list::ItemList;
use super::query::{Facts, Query};
use super::rank::{self, Scored};
use crate::store::Store;

/// How many results a view keeps sorted; the overlay shows a page of them, and scrolling past
/// them sorts every match once (`View::sorted`).
pub const TOP: usize = 512;
/// The first block is small so the first results come quickly; later blocks grow up to the
/// largest, fewer publications for the same work.
const FIRST_BLOCK: usize = 4_096;
const LARGEST_BLOCK: usize = 32_768;
/// How many finished queries are kept for reuse: enough to erase a typed query back to its
/// start without matching again. Each holds its matches (28 bytes each: ≤ 2.8 MB at 100,000).
const REMEMBERED: usize = 16;

/// What the UI shows: the results of one query generation so far.
#[derive(Default)]
pub struct View {
    pub generation: u64,
    /// The best results found so far, best first (at most `TOP`).
    pub top: Vec<Scored>,
    pub matched: usize,
    /// Candidates considered (items the filters accept).
    pub total: usize,
    /// Matching finished: `top` is the final ranking.
    pub complete: bool,
    /// Items considered, counted from the start: items appended later need matching.
    pub covered: usize,
    /// Every match (complete views only, any order): the base for an appended query.
    pub all: Arc<Vec<Scored>>,
    sorted: OnceLock<Vec<Scored>>,
}

impl View {
    /// No results (an empty query) for `generation`.
    pub fn empty(generation: u64) -> View {
        View { generation, complete: true, ..View::default() }
    }

    /// Every match in ranking order, sorted on first use (scrolling past `top`); matches that
    /// only carry a bound are scored now, with `pattern` over `items`.
    pub fn sorted(&self, items: &[super::RecallItem], pattern: &Pattern) -> &[Scored] {
        self.sorted.get_or_init(|| {
            let mut v: Vec<Scored> = self
                .all
                .par_iter()
                .filter_map(|s| if s.exact { Some(*s) } else { rank::score(items.get(s.id as usize)?, s.id, pattern) })
                .collect();
            v.par_sort_unstable_by(rank::order);
            v
        })
    }
}

/// State shared by the engine and its jobs.
pub struct Shared {
    /// The newest generation; a job of an older one stops.
    pub latest: AtomicU64,
    pub view: Mutex<Arc<View>>,
    pub item_list: Arc<ItemList>,
    pub notify: Arc<dyn Fn() + Sync + Send>,
    /// Which entities the last filter set accepted (recomputed when the filters change).
    filter_mask: Mutex<Option<(Query, Arc<Vec<bool>>)>>,
    /// The newest complete results and their queries, newest first: the base for a query that
    /// extends one (even when the queries typed in between never finished) or repeats one
    /// (erasing back to it).
    finished: Mutex<Vec<(Query, Arc<View>)>>,
}

impl Shared {
    pub fn new(item_list: Arc<ItemList>, notify: Arc<dyn Fn() + Sync + Send>) -> Shared {
        Shared {
            latest: AtomicU64::new(0),
            view: Mutex::new(Arc::new(View::empty(0))),
            item_list,
            notify,
            filter_mask: Mutex::new(None),
            finished: Mutex::new(Vec::new()),
        }
    }

    pub fn current(&self) -> Arc<View> {
        self.view.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Lint flags changed: `has:lint` masks must be recomputed.
    pub fn forget_filters(&self) {
        *self.filter_mask.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// The newest complete results, with their queries, newest first.
    pub fn finished(&self) -> Vec<(Query, Arc<View>)> {
        self.finished.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Items were removed (sections off) or lint flags changed: earlier results mean nothing now.
    pub fn forget_finished(&self) {
        self.finished.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    fn publish(&self, view: View, query: &Query) {
        if self.latest.load(Ordering::Relaxed) == view.generation {
            let view = Arc::new(view);
            if view.complete {
                let mut finished = self.finished.lock().unwrap_or_else(|e| e.into_inner());
                finished.retain(|(q, _)| q != query);
                finished.insert(0, (query.clone(), view.clone()));
                finished.truncate(REMEMBERED);
            }
            *self.view.lock().unwrap_or_else(|e| e.into_inner()) = view;
            (self.notify)();
        }
    }

    /// Which entities `query`'s filters accept; `None` when it has none.
    fn mask(&self, store: &Store, flags: &[bool], query: &Query) -> Option<Arc<Vec<bool>>> {
        if !query.has_filters() {
            return None;
        }
        let key = Query { text: String::new(), ..query.clone() };
        let mut cache = self.filter_mask.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((k, mask)) = cache.as_ref()
            && *k == key
        {
            return Some(mask.clone());
        }
        let mask: Arc<Vec<bool>> = Arc::new(
            store
                .entities
                .par_iter()
                .enumerate()
                .map(|(i, e)| key.accepts(e, Facts { has_lint: flags.get(i).copied().unwrap_or(false) }))
                .collect(),
        );
        *cache = Some((key, mask.clone()));
        Some(mask)
    }
}

/// Where a job's candidates come from besides the items from `Job::from` on.
pub enum Base {
    /// Nothing: every item_list item the filters accept.
    Fresh,
    /// The previous query's matches, rescored: the new query only narrows it (an append).
    Rescore { matches: Arc<Vec<Scored>>, total: usize },
    /// The previous matches of this same query, kept: only new items need scoring.
    Keep { matches: Arc<Vec<Scored>>, total: usize },
}

pub struct Job {
    pub generation: u64,
    pub query: Query,
    pub base: Base,
    /// Items from here on are scanned (with the filters).
    pub from: usize,
    /// Ids to score first (the previous results' best), so the first view is already good.
    pub first: Vec<u32>,
    /// With `Base::Rescore`: how much any score can grow from the base's query to this one
    /// (`rank::gain_bound`). Matches that cannot reach the best `TOP` are then only tested,
    /// not scored, and carry their bound.
    pub gain: Option<u32>,
    /// With `Base::Rescore`: which part of the base's exact scores still holds, and for how
    /// many leading words of this query.
    pub reuse: Option<(rank::Reuse, usize)>,
    pub store: Arc<Store>,
    pub flags: Arc<Vec<bool>>,
}

/// What a job has found so far.
struct Progress {
    generation: u64,
    all: Vec<Scored>,
    top: Vec<Scored>,
    total: usize,
}

impl Progress {
    fn add(&mut self, hits: &[Scored]) {
        self.all.extend_from_slice(hits);
        self.top.extend(hits.iter().filter(|s| s.exact));
        if self.top.len() > 4 * TOP {
            rank::keep_best(&mut self.top, TOP);
        }
    }

    /// The `TOP`-th best exact score so far: what a match must beat to be scored at all.
    fn floor(&mut self) -> Option<Scored> {
        rank::keep_best(&mut self.top, TOP);
        self.top.get(TOP - 1).copied()
    }

    /// The view so far; `covered` once matching is complete.
    fn view(&mut self, covered: Option<usize>) -> View {
        rank::keep_best(&mut self.top, TOP);
        View {
            generation: self.generation,
            top: self.top.clone(),
            matched: self.all.len(),
            total: self.total,
            complete: covered.is_some(),
            covered: covered.unwrap_or(0),
            all: Arc::new(if covered.is_some() { std::mem::take(&mut self.all) } else { Vec::new() }),
            sorted: OnceLock::new(),
        }
    }
}

/// Run `job` to the end (or until a newer generation starts), publishing as it goes.
pub fn run(shared: &Shared, job: Job) {
    let generation = job.generation;
    let stale = || shared.latest.load(Ordering::Relaxed) != generation;
    if stale() {
        return;
    }
    let pattern = rank::pattern(&job.query.text);
    let bounds = rank::bounds(&pattern);
    let mask = shared.mask(&job.store, &job.flags, &job.query);
    let accepted = |idx: u32| mask.as_ref().is_none_or(|m| m.get(idx as usize).copied().unwrap_or(false));
    let fresh = matches!(job.base, Base::Fresh);
    let (all, total, rescore) = match job.base {
        Base::Fresh => (Vec::new(), 0, None),
        Base::Rescore { matches, total } => (Vec::new(), total, Some(matches)),
        Base::Keep { matches, total } => ((*matches).clone(), total, None),
    };
    let top = all.iter().filter(|s| s.exact).copied().collect();
    let mut p = Progress { generation, top, all, total };
    let item_list = shared.item_list.clone();

    // The previous best first: one small block, published at once.
    let mut done = Vec::new();
    if !job.first.is_empty() {
        let items = item_list.read();
        done = vec![false; items.len()];
        let mut hits = Vec::new();
        for &id in &job.first {
            let Some(item) = items.get(id as usize) else { continue };
            done[id as usize] = true;
            if accepted(item.idx) {
                p.total += usize::from(fresh);
                hits.extend(rank::score(item, id, &pattern));
            }
        }
        drop(items);
        if stale() {
            return;
        }
        p.add(&hits);
        shared.publish(p.view(None), &job.query);
    }
    let skip = |id: usize| done.get(id).copied().unwrap_or(false);

    // The previous matches, rescored in blocks. A match whose bound (the old score plus what the
    // added characters can add, or `bound`'s) cannot reach the best `TOP` found so far is only
    // tested, not scored: this is what keeps a typed character cheap when most items match fuzzily.
    if let Some(prev) = rescore {
        let mut at = 0;
        let mut block = FIRST_BLOCK;
        while at < prev.len() {
            let floor = p.floor();
            let ids = &prev[at..(at + block).min(prev.len())];
            let items = item_list.read();
            let rescore = |s: &Scored| -> Option<Scored> {
                let item = items.get(s.id as usize)?;
                let ceiling = job.gain.map_or(rank::UNKNOWN, |gain| s.score.saturating_add(gain));
                let prior = match job.reuse {
                    Some((rank::Reuse::Head, known)) => {
                        rank::Prior { known, head: s.head, exact: s.head_exact, ceiling }
                    }
                    Some((rank::Reuse::Whole, known)) => rank::Prior { known, head: s.score, exact: s.exact, ceiling },
                    None => rank::Prior { ceiling, ..rank::Prior::NONE },
                };
                rank::score_or_bound(item, s.id, &pattern, bounds.as_ref(), prior, floor.as_ref())
            };
            let hits: Vec<Scored> = ids
                .par_iter()
                .filter(|s| !skip(s.id as usize))
                .filter_map(|s| if stale() { None } else { rescore(s) })
                .collect();
            drop(items);
            if stale() {
                return;
            }
            p.add(&hits);
            at += ids.len();
            block = (block * 2).min(LARGEST_BLOCK);
            shared.publish(p.view(None), &job.query);
        }
    }

    // Items not considered yet, with the filters.
    let mut at = job.from;
    let mut block = FIRST_BLOCK;
    loop {
        let items = item_list.read();
        let end = items.len();
        if at >= end {
            drop(items);
            shared.publish(p.view(Some(end)), &job.query);
            return;
        }
        let to = (at + block).min(end);
        let candidates: Vec<u32> =
            (at..to).filter(|&id| !skip(id) && accepted(items[id].idx)).map(|id| id as u32).collect();
        let floor = p.floor();
        let hits: Vec<Scored> = candidates
            .par_iter()
            .filter_map(|&id| {
                if stale() {
                    return None;
                }
                let (item, prior) = (&items[id as usize], rank::Prior::NONE);
                rank::score_or_bound(item, id, &pattern, bounds.as_ref(), prior, floor.as_ref())
            })
            .collect();
        drop(items);
        if stale() {
            return;
        }
        p.total += candidates.len();
        p.add(&hits);
        at = to;
        block = (block * 2).min(LARGEST_BLOCK);
        if at < end {
            shared.publish(p.view(None), &job.query);
        }
    }
}
