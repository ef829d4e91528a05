//! Full-text recall in the streaming engine: one job per query ranks the store over fields and
//! bodies (`TextRecall::rank`) on the engine's pool and reads the matching lines of the best
//! results, then publishes a `TextView` the engine ticks in. A newer query makes an older job
//! stop before it reads any more bodies.
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::{LINES_PER_HIT, MatchLine, Terms, TextHit, TextRecall, lines};
use crate::recall::query::Query;
use crate::store::Store;
use crate::store::model::entity::EntityIdx;

/// Results whose matching lines are read: a few pages of the overlay (reading every hit's body
/// would cost more than the ranking on a common word).
pub const LINES_FOR: usize = 200;

/// The full-text results of one query.
#[derive(Debug, Default)]
pub struct TextView {
    pub generation: u64,
    /// Every match, best first.
    pub hits: Vec<TextHit>,
    /// The matching lines of the best `LINES_FOR` hits that have any.
    pub lines: HashMap<EntityIdx, Vec<MatchLine>>,
}

/// State shared by the engine and its text jobs.
#[derive(Default)]
pub struct TextShared {
    pub latest: AtomicU64,
    pub view: Mutex<Option<Arc<TextView>>>,
}

impl TextShared {
    pub fn current(&self) -> Option<Arc<TextView>> {
        self.view.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// Whether the query asks the bodies anything (it has words, not only filters).
pub fn wanted(query: &Query) -> bool {
    !Terms::parse(&query.text).is_empty()
}

pub struct TextJob {
    pub generation: u64,
    pub query: Query,
    pub text: Arc<TextRecall>,
    pub store: Arc<Store>,
    pub flags: Arc<Vec<bool>>,
}

/// Rank, read the best hits' lines, publish; nothing once a newer query has started.
pub fn run(shared: &TextShared, job: TextJob, notify: &(dyn Fn() + Sync + Send)) {
    let stale = || shared.latest.load(Ordering::Relaxed) != job.generation;
    if stale() {
        return;
    }
    let hits = job.text.rank_as_typed(&job.store, &job.query, &job.flags, LINES_FOR);
    let words = job.text.words(&job.query.text, super::typing(&job.query.text));
    let mut found = HashMap::new();
    for h in hits.iter().take(LINES_FOR) {
        if stale() {
            return;
        }
        if h.text > 0.0 {
            found.insert(h.idx, lines::matching_lines(&job.store, h.idx, &words, LINES_PER_HIT));
        }
    }
    let view = Arc::new(TextView { generation: job.generation, hits, lines: found });
    let mut slot = shared.view.lock().unwrap_or_else(|e| e.into_inner());
    if !stale() {
        *slot = Some(view);
        drop(slot);
        notify();
    }
}
