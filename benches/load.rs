//! Load, link graph, catalog and recall costs on generated OKF bundles of 1k and 10k concepts
//! (100k with `FOLIO_BENCH_100K=1`: minutes per run, not for CI). Run with `cargo bench`;
//! `benches/scale.sh` measures the whole binary against ripgrep and records peak memory.
use std::path::PathBuf;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use folio::store::{Store, model::graph, write::catalog};

fn sizes() -> Vec<usize> {
    let mut s = vec![1_000, 10_000];
    if std::env::var_os("FOLIO_BENCH_100K").is_some_and(|v| v == "1") {
        s.push(100_000);
    }
    s
}

/// A generated bundle, kept between runs under the system temp dir (generation is slower than
/// the load being measured).
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

fn load(c: &mut Criterion) {
    let mut g = c.benchmark_group("load");
    g.sample_size(10);
    for n in sizes() {
        let dir = bundle(n);
        g.bench_with_input(BenchmarkId::from_parameter(n), &dir, |b, dir| {
            b.iter(|| Store::load(dir, folio::store::dialect::okf::KIND, String::new()))
        });
    }
    g.finish();
}

fn graph_and_index_and_recall(c: &mut Criterion) {
    for n in sizes() {
        let store = Store::load(&bundle(n), folio::store::dialect::okf::KIND, String::new());
        let mut g = c.benchmark_group(format!("okf-{n}"));
        g.sample_size(10);
        g.bench_function("graph-whole", |b| b.iter(|| graph::whole(&store).edges.len()));
        g.bench_function("index-status", |b| b.iter(|| catalog::status(&store).len()));
        g.bench_function("recall", |b| b.iter(|| folio::recall::recall(&store, "daily revenue", 20)));
        g.finish();
    }
}

criterion_group!(benches, load, graph_and_index_and_recall);
criterion_main!(benches);
