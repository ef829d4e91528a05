//! The streaming engine skips most exact scores (score bounds, reuse of the previous query's
//! scores); this checks that it still ranks exactly as plain full scoring does (`recall_with`,
//! what `folio recall` prints) for random typing over a generated store: words of the store
//! typed a character at a time, with typos, capitals, erasures, filters and fzf syntax.
use std::sync::Arc;

use folio::recall::engine::Engine;
use folio::recall::{Hit, Query, recall_with};
use folio::store::Store;

/// A deterministic generator (the test needs no dependency for this).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A query a person might type: words of the store (whole, cut short, a typo, capitalised,
/// an initial), sometimes a filter or fzf syntax.
fn query(rng: &mut Rng, words: &[String]) -> String {
    let mut parts = Vec::new();
    for _ in 0..1 + rng.below(3) {
        let w = &words[rng.below(words.len())];
        let mut w: String = w.chars().take(1 + rng.below(w.len().max(1))).collect();
        match rng.below(10) {
            0 => w = w.to_uppercase(),
            1 => w.insert(rng.below(w.len() + 1), ['x', 'q', '3', '-'][rng.below(4)]),
            2 => w = format!("!{w}"),
            3 => w = format!("'{w}"),
            _ => {}
        }
        parts.push(w);
    }
    match rng.below(8) {
        0 => parts.insert(0, "kind:metric".into()),
        1 => parts.push("tag:latency".into()),
        _ => {}
    }
    parts.join(" ")
}

fn check(engine: &mut Engine, store: &Store, input: &str) {
    engine.set_query(input);
    let want = recall_with(store, &Query::parse(input), &[], false, usize::MAX);
    assert_eq!(engine.matched(), want.len(), "{input:?}: match count");
    let top: Vec<Hit> = engine.results(0, 40).into_iter().map(|(h, _, _)| h).collect();
    assert!(top[..] == want[..top.len()], "{input:?}: the best results differ from full scoring");
    if want.len() > 40 {
        let all: Vec<Hit> = engine.results(0, usize::MAX / 2).into_iter().map(|(h, _, _)| h).collect();
        assert!(all == want, "{input:?}: the whole ranking differs from full scoring");
    }
}

#[test]
fn typing_random_queries_ranks_exactly_as_full_scoring() {
    let dir = tempfile::tempdir().unwrap();
    folio_gen::generate(folio::store::dialect::okf::KIND, 6_000, 7, dir.path()).unwrap();
    let store = Arc::new(Store::load(dir.path(), folio::store::dialect::okf::KIND, "test".into()));
    let words: Vec<String> = store
        .entities
        .iter()
        .step_by(37)
        .flat_map(|e| e.title.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>())
        .chain(["daily rev", "gross margin", "hot index 93", "stale snapshot"].map(String::from))
        .collect();
    // Synchronous: every keystroke is matched to the end before `set_query` returns.
    let mut engine = Engine::new(store.clone(), Arc::new(Vec::new()), Arc::new(|| {}), true);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..6 {
        let q = query(&mut rng, &words);
        let chars: Vec<char> = q.chars().collect();
        for n in 1..=chars.len() {
            check(&mut engine, &store, &chars[..n].iter().collect::<String>());
        }
        // Erase part of it and type something else after it.
        let keep = rng.below(chars.len());
        let next = format!("{} {}", chars[..keep].iter().collect::<String>(), query(&mut rng, &words));
        let next: Vec<char> = next.chars().collect();
        for n in keep..=next.len() {
            check(&mut engine, &store, &next[..n].iter().collect::<String>());
        }
    }
}
