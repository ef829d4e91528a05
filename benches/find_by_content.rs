//! Find-by-content costs on a generated OKF bundle of 10,000 concepts (100,000 with
//! `FOLIO_BENCH_100K=1`), the bundle `benches/recall.rs` and `benches/load.rs` use:
//! - `load`: the full load (the yardstick: the text index must build in ≤ 1.5× it);
//! - `text index build`: reading every body and building folio's own inverted index (the
//!   fuzzy items `TextRecall` also builds are the TUI catalog's, built anyway);
//! - `body query`: one full-text query (BM25 and the fuzzy fields, matching lines of the top 20),
//!   the target ≤ 50 ms median at 100k;
//! - `near-duplicates`: both content rules over the whole store (≤ 2× the load);
//! - `tokenise bodies, one core`: every description and body, read beforehand, through one
//!   `Tokeniser` (the word scan and the term table alone, no I/O, no threads).
//!
//! Before the groups run it prints the index's size per entity (target ≤ 1 KB). Quick: ten
//! samples each. Not a timed test: compare by eye.
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use folio::recall::Query;
use folio::recall::text::{TextIndex, TextRecall};
use folio::store::Store;
use folio::store::lint::{LintConfig, near_duplicate, possible_contradiction};
use folio::store::read::body_text;
use folio::store::read::content::Tokeniser;
use folio::store::read::fsio::FolderOpener;

/// Words of the generated corpus, a phrase and a filter.
const QUERIES: &[&str] =
    &["margin", "daily revenue", "\"gross margin\"", "snapshot stale", "kind:metric churn", "pillow"];

fn entities() -> usize {
    if std::env::var_os("FOLIO_BENCH_100K").is_some_and(|v| v == "1") { 100_000 } else { 10_000 }
}

/// The generated OKF bundle, kept between runs under the temp dir.
fn bundle(n: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("folio-bench-okf-{n}-seed1"));
    let done = dir.join(".generated");
    if !done.exists() {
        let _ = std::fs::remove_dir_all(&dir);
        folio_gen::generate(folio::store::dialect::okf::KIND, n, 1, &dir).expect("generate bundle");
        std::fs::write(&done, "").expect("mark bundle complete");
    }
    dir
}

fn content(c: &mut Criterion) {
    let n = entities();
    let dir = bundle(n);
    let store = Store::load(&dir, folio::store::dialect::okf::KIND, "bench".into());
    let text = TextRecall::build(&store);
    let index = &text.index;
    eprintln!(
        "text index: {} entities, {} bytes, {:.0} bytes per entity",
        index.len(),
        index.heap_bytes(),
        index.heap_bytes() as f64 / index.len().max(1) as f64
    );
    let mut g = c.benchmark_group(format!("content-okf-{n}"));
    g.sample_size(10);
    g.bench_function("load", |b| {
        b.iter(|| Store::load(&dir, folio::store::dialect::okf::KIND, "bench".into()).entities.len())
    });
    g.bench_function("text index build", |b| b.iter(|| TextIndex::build(&store).len()));
    for q in QUERIES {
        let query = Query::parse(q);
        g.bench_function(format!("body query {q}"), |b| b.iter(|| text.search(&store, &query, &[], 20).len()));
    }
    g.bench_function("near-duplicates + contradictions", |b| {
        b.iter(|| {
            let mut out = Vec::new();
            let threshold = LintConfig::default().near_duplicate_threshold.unwrap_or(near_duplicate::DEFAULT_THRESHOLD);
            let profiles = near_duplicate::all_profiles(&store);
            let pairs = near_duplicate::check(&store, &profiles, threshold, &|_, _, _, _| true, &mut out);
            possible_contradiction::check(&store, &pairs, &[], &mut out);
            out.len()
        })
    });
    let mut opener = FolderOpener::default();
    let texts: Vec<(String, String)> = (0..store.entities.len() as u32)
        .map(|i| {
            let description = store.entity(i).description.as_deref().unwrap_or_default().to_string();
            let body = body_text::body_bytes(&store, i, &mut opener).map(|b| b.text().into_owned());
            (description, body.unwrap_or_default())
        })
        .collect();
    g.bench_function("tokenise bodies, one core", |b| {
        b.iter(|| {
            let mut t = Tokeniser::default();
            for (description, body) in &texts {
                t.add(description);
                t.add(body);
                t.end_entity();
            }
            t.into_part()
        })
    });
    g.finish();
}

criterion_group!(benches, content);
criterion_main!(benches);
