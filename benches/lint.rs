//! Lint against load on a generated OKF store: the rules must cost little beyond the load
//! (`folio lint` on a store within 1.2× of `folio stats`). Not a timed test: compare by eye.
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use folio::store::Store;
use folio::store::dialect::DialectKind;
use folio::store::lint::{self, LintConfig};

const CONCEPTS: usize = 2_000;

/// An OKF bundle of `n` concepts in 20 folders, each linking to two others, a few defects mixed in.
fn generate(root: &Path, n: usize) {
    for i in 0..n {
        let dir = root.join(format!("area{:02}", i % 20));
        std::fs::create_dir_all(&dir).unwrap();
        let description = if i % 50 == 0 { String::new() } else { format!("description: Concept {i}.\n") };
        let next = (i + 1) % n;
        let far = (i * 7 + 3) % n;
        let text = format!(
            "---\ntype: Note\ntitle: Concept {i}\n{description}tags: [bench]\n---\n# Concept {i}\n\n\
             See [next](/area{:02}/c{next}.md) and [far](/area{:02}/c{far}.md).\n\nBody text for concept {i}.\n",
            next % 20,
            far % 20
        );
        std::fs::write(dir.join(format!("c{i}.md")), text).unwrap();
    }
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path(), CONCEPTS);
    let mut g = c.benchmark_group("okf-2000");
    g.sample_size(10);
    g.bench_function("load + catalog status (stats)", |b| {
        b.iter(|| {
            let store = Store::load(dir.path(), DialectKind::Okf, "bench".into());
            folio::store::catalog::status(&store).len()
        })
    });
    g.bench_function("load + lint", |b| {
        b.iter(|| {
            let store = Store::load(dir.path(), DialectKind::Okf, "bench".into());
            lint::lint(&store, &LintConfig::default()).findings.len()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
