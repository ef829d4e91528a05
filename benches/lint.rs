//! Lint costs. `okf-2000`: lint against load on a small generated bundle (the rules must cost
//! little beyond the load). `relint-okf-N`: re-linting after a live reload changed one file, at
//! 10k concepts (100k with `FOLIO_BENCH_100K=1`), against a full pass of the same store — the
//! target is ≤ 10 ms for one edited file at 100k. The stores are copies of
//! `/work/bench/okf-N` when present (else generated with the same generator and seed).
//! Not a timed test: compare by eye.
use std::path::{Path, PathBuf};

use criterion::{Criterion, criterion_group, criterion_main};
use folio::store::Store;
use folio::store::lint::{self, LintConfig, Linted};

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

fn small(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path(), CONCEPTS);
    let mut g = c.benchmark_group("okf-2000");
    g.sample_size(10);
    g.bench_function("load + catalog status (stats)", |b| {
        b.iter(|| {
            let store = Store::load(dir.path(), folio::store::dialect::okf::KIND, "bench".into());
            folio::store::write::catalog::status(&store).len()
        })
    });
    g.bench_function("load + lint", |b| {
        b.iter(|| {
            let store = Store::load(dir.path(), folio::store::dialect::okf::KIND, "bench".into());
            lint::lint(&store, &LintConfig::default()).findings.len()
        })
    });
    g.finish();
}

fn sizes() -> Vec<usize> {
    let mut s = vec![10_000];
    if std::env::var_os("FOLIO_BENCH_100K").is_some_and(|v| v == "1") {
        s.push(100_000);
    }
    s
}

/// A writable copy of the `n`-concept bench store in a temp dir.
fn store_copy(n: usize) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dst = tmp.path().join(format!("okf-{n}"));
    let src = PathBuf::from(format!("/work/bench/okf-{n}"));
    if src.is_dir() {
        let ok = std::process::Command::new("cp").arg("-r").arg(&src).arg(&dst).status().is_ok_and(|s| s.success());
        let ok = ok
            && std::process::Command::new("chmod").arg("-R").arg("u+w").arg(&dst).status().is_ok_and(|s| s.success());
        assert!(ok, "copying {} failed", src.display());
    } else {
        folio_gen::generate(folio::store::dialect::okf::KIND, n, 1, &dst).expect("generate bundle");
    }
    (tmp, dst)
}

/// Rewrite one concept as an agent would: a new title (its catalog changes), a new link and a
/// broken one. Returns the refreshed store and the changed paths.
fn edit(root: &Path, store: &Store, idx: usize) -> (Store, Vec<String>) {
    let e = &store.entities[idx];
    let other = &store.entities[(idx + 7) % store.entities.len()].path;
    let text = std::fs::read_to_string(root.join(&e.path)).unwrap();
    let text =
        text.replacen("title:", "title: Revised", 1) + &format!("\nSee [x](/{other}) and [gone](/nowhere.md).\n");
    std::fs::write(root.join(&e.path), text).unwrap();
    refresh(store, &e.path)
}

fn refresh(store: &Store, rel: &str) -> (Store, Vec<String>) {
    let (new, r) = store.refreshed(&[rel]);
    (new, r.changed.into_iter().chain(r.added).chain(r.removed).collect())
}

fn relint(c: &mut Criterion) {
    for n in sizes() {
        let (_tmp, root) = store_copy(n);
        let config = LintConfig::default();
        let old = Store::load(&root, folio::store::dialect::okf::KIND, String::new());
        let linted = Linted::full(&old, &config);
        let mut g = c.benchmark_group(format!("relint-okf-{n}"));
        g.sample_size(10);
        // A typical concept in the middle of the store, and the most linked-to one.
        let (typical, typical_changed) = edit(&root, &old, old.entities.len() / 2);
        g.bench_function("one edited file", |b| b.iter(|| linted.relint(&old, &typical, &typical_changed, &config)));
        let hub = (0..old.entities.len()).max_by_key(|&i| old.backlinks[i].len()).unwrap();
        let (hubbed, hub_changed) = edit(&root, &old, hub);
        g.bench_function(format!("edited hub ({} backlinks)", old.backlinks[hub].len()), |b| {
            b.iter(|| linted.relint(&old, &hubbed, &hub_changed, &config))
        });
        // A new file: links that resolved to no entity are re-checked.
        let dir = old.entities[0].path.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        let rel = format!("{dir}/bench-new.md");
        let text =
            format!("---\ntype: Note\ntitle: New\ndescription: New.\n---\nSee [a](/{}).\n", old.entities[1].path);
        std::fs::write(root.join(&rel), text).unwrap();
        let (created, created_changed) = refresh(&old, &rel);
        g.bench_function("one created file", |b| b.iter(|| linted.relint(&old, &created, &created_changed, &config)));
        g.bench_function("full lint (for comparison)", |b| b.iter(|| Linted::full(&typical, &config)));
        g.finish();
    }
}

criterion_group!(benches, small, relint);
criterion_main!(benches);
