//! The review queue listed without holding it (issue 44): one pass over the entities gives the
//! queue's order and its reasons' counts, then each item is built again as it is written. A
//! listing of a 100k-entity inbox keeps 16 bytes per item instead of the item (with its id,
//! title, path, hash and findings as owned text), and nothing is left to free item by item at
//! the end. The order and the items are those of `queue::build_with_facts` followed by `keep`.
use super::filter::Filter;
use super::queue::{self, ALL, Builder, ItemView, Line, QueueItem, Reason, TextFacts};
use crate::store::model::entity::EntityIdx;

/// Fills in what the format leaves out of the whole ordered queue before `keep` sees it (git's
/// authors and runs, `history::attribution::from_git`). Given one, the listing holds its items.
pub type Attribute<'a> = &'a dyn Fn(&mut [QueueItem]);

/// Entities looked at, and lines rendered, on one rayon thread at a time (a few in tests, so
/// that their small stores span several runs).
const RUN: usize = if cfg!(test) { 2 } else { 4096 };
/// Items rendered before they are written (`Listing::rendered`; a few in tests).
const WINDOW: usize = if cfg!(test) { 3 } else { 16 * 1024 };

pub struct Listing<'a> {
    builder: &'a Builder<'a>,
    facts: &'a [Option<TextFacts>],
    /// The kept entities in the queue's order (`queue::order`), when items are built as listed.
    order: Vec<EntityIdx>,
    /// The kept items, when they had to be attributed all at once.
    held: Option<Vec<QueueItem>>,
    counts: Vec<(Reason, usize)>,
}

impl<'a> Listing<'a> {
    /// The queue of `builder` over entities whose text facts are `facts` (complete: see
    /// `queue::complete_facts`), the items `filter` takes.
    pub fn new(
        builder: &'a Builder<'a>,
        facts: &'a [Option<TextFacts>],
        filter: &Filter,
        attribute: Option<Attribute<'_>>,
    ) -> Listing<'a> {
        let keep = |i: &QueueItem| filter.matches(i);
        // A filter of reasons and ages is answered by where the item goes: the whole item
        // (its text copied, its findings written) is built only as it is listed.
        let place_only = filter.reads_only_placement();
        let item = |i: usize| builder.item(i as EntityIdx, facts.get(i)?.as_ref()?);
        let count = |n: &mut [usize; ALL.len()], item: &QueueItem| {
            for r in &item.reasons {
                if let Some(k) = ALL.iter().position(|x| x == r) {
                    n[k] += 1;
                }
            }
        };
        let (order, held, n) = if let Some(attribute) = attribute {
            let mut items: Vec<QueueItem> = (0..facts.len()).filter_map(item).collect();
            queue::order(&mut items);
            attribute(&mut items);
            items.retain(keep);
            let mut n = [0usize; ALL.len()];
            items.iter().for_each(|i| count(&mut n, i));
            (Vec::new(), Some(items), n)
        } else {
            use rayon::prelude::*;
            // (tier, age, entity), looked at in runs on rayon's threads: sorted on all three,
            // the result is the stable sort on the first two that `queue::order` gives items
            // built in store order, without the stable sort's buffer of half the keys. Each
            // entity's item is built over the last one's of its run, so looking at 100k entities
            // allocates nothing per entity.
            type Keys = (Vec<(u8, i64, EntityIdx)>, [usize; ALL.len()]);
            let look = |start: usize, run: &[Option<TextFacts>]| -> Keys {
                let (mut keys, mut n) = (Vec::new(), [0usize; ALL.len()]);
                let mut it = QueueItem::default();
                for (i, f) in run.iter().enumerate() {
                    let Some(f) = f else { continue };
                    let i = (start + i) as EntityIdx;
                    builder.look_ahead(i);
                    let placed =
                        if place_only { builder.decide_into(i, f, &mut it) } else { builder.item_into(i, f, &mut it) };
                    if placed && keep(&it) {
                        count(&mut n, &it);
                        keys.push((it.priority, it.age_days.unwrap_or(i64::MAX), it.idx));
                    }
                }
                (keys, n)
            };
            let runs: Vec<Keys> = facts.par_chunks(RUN).enumerate().map(|(r, run)| look(r * RUN, run)).collect();
            let mut n = [0usize; ALL.len()];
            let mut keys = Vec::with_capacity(runs.iter().map(|(k, _)| k.len()).sum());
            for (k, counted) in runs {
                keys.extend(k);
                n.iter_mut().zip(counted).for_each(|(a, b)| *a += b);
            }
            keys.par_sort_unstable();
            (keys.into_iter().map(|(_, _, idx)| idx).collect(), None, n)
        };
        let counts = ALL.into_iter().zip(n).filter(|(_, c)| *c > 0).collect();
        Listing { builder, facts, order, held, counts }
    }

    /// How many items the listing has.
    pub fn len(&self) -> usize {
        self.held.as_ref().map_or(self.order.len(), Vec::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many items carry each reason, in tier order, as `queue::counts` gives them.
    pub fn counts(&self) -> &[(Reason, usize)] {
        &self.counts
    }

    /// Hands each item to `each` in the queue's order, until `each` answers false.
    pub fn each(&self, each: &mut dyn FnMut(&QueueItem) -> bool) {
        if let Some(items) = &self.held {
            for item in items {
                if !each(item) {
                    return;
                }
            }
            return;
        }
        // One item, each built over the last (nothing allocated per item once it has grown).
        let mut item = QueueItem::default();
        for &idx in &self.order {
            // Built from the same builder and facts as when it was kept, so it is the same item.
            let Some(f) = self.facts[idx as usize].as_ref() else { continue };
            if !self.builder.item_into(idx, f, &mut item) {
                continue;
            }
            if !each(&item) {
                return;
            }
        }
    }

    /// Every item's `Line` rendered by `render`, handed to `each` in the queue's order, until
    /// `each` fails (`rendered`).
    pub fn lines_rendered<E>(
        &self,
        render: impl Fn(Line<'_>, &mut Vec<u8>) + Sync,
        each: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        self.rendered(
            |i, text| render(i.line(), text),
            |f, placed, text| render(self.builder.line(f, placed), text),
            each,
        )
    }

    /// Every item's `ItemView` rendered by `render`, handed to `each` in the queue's order,
    /// until `each` fails (`rendered`).
    pub fn views_rendered<E>(
        &self,
        render: impl Fn(ItemView<'_>, &mut Vec<u8>) + Sync,
        each: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        self.rendered(
            |i, text| render(i.view(), text),
            |f, placed, text| render(self.builder.view(f, placed, f.hash_chars().as_str()), text),
            each,
        )
    }

    /// Every item rendered into text (`held` renders a held item, `placed` an entity's facts and
    /// its item placed but not filled), handed to `each` in the queue's order. The queue is taken
    /// a window at a time, each window's items rendered on rayon's threads in the store's order
    /// and handed over in the queue's: looked at in the queue's order, each entity, its facts and
    /// its dates are far in memory from the last one's, and at 100k items rendering them so took
    /// as long as opening the store's cache. A window bounds the text held (`--json`: 57 MB at
    /// 100k items).
    fn rendered<E>(
        &self,
        held: impl Fn(&QueueItem, &mut Vec<u8>) + Sync,
        placed: impl Fn(&TextFacts, &QueueItem, &mut Vec<u8>) + Sync,
        mut each: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        use rayon::prelude::*;
        // A run's text and, for each of its items, its place in the window and its bytes.
        type Run = (Vec<u8>, Vec<(u32, std::ops::Range<usize>)>);
        let mut by_entity: Vec<(EntityIdx, u32)> = Vec::new();
        for window in 0..self.len().div_ceil(WINDOW) {
            let window = window * WINDOW..(window * WINDOW + WINDOW).min(self.len());
            let runs: Vec<Run> = match &self.held {
                // Held items are in the queue's order already, each in its own allocation.
                Some(items) => items[window.clone()]
                    .par_chunks(RUN)
                    .enumerate()
                    .map(|(r, run)| {
                        let mut out = Run::default();
                        for (i, item) in run.iter().enumerate() {
                            let from = out.0.len();
                            held(item, &mut out.0);
                            out.1.push(((r * RUN + i) as u32, from..out.0.len()));
                        }
                        out
                    })
                    .collect(),
                None => {
                    by_entity.clear();
                    by_entity.extend(self.order[window.clone()].iter().enumerate().map(|(at, &idx)| (idx, at as u32)));
                    by_entity.sort_unstable();
                    by_entity
                        .par_chunks(RUN)
                        .map(|run| {
                            let mut out = Run::default();
                            let mut item = QueueItem::default();
                            for &(idx, at) in run {
                                self.builder.look_ahead(idx);
                                let Some(f) = self.facts[idx as usize].as_ref() else { continue };
                                if self.builder.decide_into(idx, f, &mut item) {
                                    let from = out.0.len();
                                    placed(f, &item, &mut out.0);
                                    out.1.push((at, from..out.0.len()));
                                }
                            }
                            out
                        })
                        .collect()
                }
            };
            let mut spans: Vec<Option<(usize, std::ops::Range<usize>)>> = vec![None; window.len()];
            for (r, (_, items)) in runs.iter().enumerate() {
                for (at, span) in items {
                    spans[*at as usize] = Some((r, span.clone()));
                }
            }
            spans.into_iter().flatten().try_for_each(|(r, span)| each(&runs[r].0[span]))?;
        }
        Ok(())
    }

    /// `each` for a writer that can fail: stops at the first error and returns it.
    pub fn try_each<E>(&self, mut each: impl FnMut(&QueueItem) -> Result<(), E>) -> Result<(), E> {
        let mut failed = None;
        self.each(&mut |i| match each(i) {
            Ok(()) => true,
            Err(e) => {
                failed = Some(e);
                false
            }
        });
        failed.map_or(Ok(()), Err)
    }

    /// Every item, held (`review list --group` gathers them).
    pub fn collect(&self) -> Vec<QueueItem> {
        let mut out = Vec::with_capacity(self.len());
        self.each(&mut |i| {
            out.push(i.clone());
            true
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use crate::store::review::filter::Filter;

    /// The listing gives the items `build_with_facts` gives, in its order, filtered alike.
    #[test]
    fn lists_the_queue_as_built_whole() {
        let dir = tempfile::tempdir().unwrap();
        for (i, (kind, updated)) in [
            ("note", "2026-01-05"),
            ("idea", "2026-01-01"),
            ("note", ""),
            ("idea", "2026-01-05"),
            ("note", "2025-12-01"),
            ("idea", "2025-11-01"),
            ("note", "2026-01-05"),
            ("idea", ""),
        ]
        .iter()
        .enumerate()
        {
            let date = if updated.is_empty() { String::new() } else { format!("updated: {updated}\n") };
            let text = format!("---\ntitle: Note {i}\ntype: {kind}\n{date}---\nBody {i} with [[Note {}]].\n", i + 7);
            std::fs::write(dir.path().join(format!("note-{i}.md")), text).unwrap();
        }
        let store = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
        let report = crate::store::lint::lint(&store, &Default::default());
        let mut facts = Vec::new();
        let (whole, _) = queue::build_with_facts(&store, &report, &mut facts);
        assert!(whole.len() >= 5, "{whole:?}");
        let verdicts = queue::Verdicts::open(&store);
        let builder = Builder::new(&store, &report, &verdicts);
        for text in ["", "type:idea", "reason:lint-error", "older:10d", "reason:never-reviewed older:0d", "note 3"] {
            let filter = Filter::parse(text).unwrap();
            let want: Vec<QueueItem> = whole.iter().filter(|i| filter.matches(i)).cloned().collect();
            let ids = |items: &[QueueItem]| items.iter().map(|i| i.id.clone()).collect::<Vec<_>>();
            for attribute in [None, Some(&(|_: &mut [QueueItem]| {}) as Attribute<'_>)] {
                let listing = Listing::new(&builder, &facts, &filter, attribute);
                let got = listing.collect();
                assert_eq!(ids(&got), ids(&want), "filter {text:?}");
                assert_eq!(format!("{got:?}"), format!("{want:?}"));
                assert_eq!(listing.len(), want.len());
                assert_eq!(listing.counts(), queue::counts(&want).as_slice());
                let mut lines = Vec::new();
                let render = |l: Line<'_>, text: &mut Vec<u8>| text.extend(format!("{l:?}\n").bytes());
                listing.lines_rendered(render, |l| std::io::Write::write_all(&mut lines, l)).unwrap();
                let want_lines: String = want.iter().map(|i| format!("{:?}\n", i.line())).collect();
                assert_eq!(String::from_utf8(lines).unwrap(), want_lines, "{text:?}");
                // Each view the same as the whole item's (its findings compared as texts).
                let mut views = Vec::new();
                // Rendered with the findings as whole texts, as a held item's are.
                let debug = |v: ItemView<'_>| {
                    let mut texts = Vec::new();
                    let _ = v.findings.try_each(|pieces| {
                        texts.push(pieces.concat());
                        Ok::<_, ()>(())
                    });
                    format!("{:?}\n", ItemView { findings: queue::FindingTexts::Whole(&texts), ..v })
                };
                let render = |v: ItemView<'_>, text: &mut Vec<u8>| text.extend(debug(v).bytes());
                listing.views_rendered(render, |v| std::io::Write::write_all(&mut views, v)).unwrap();
                let want_views: String = want.iter().map(|i| debug(i.view())).collect();
                assert_eq!(String::from_utf8(views).unwrap(), want_views, "{text:?}");
            }
        }
    }
}
