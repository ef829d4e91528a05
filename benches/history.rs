//! One entity's history (issue 20: under 200 ms warm at 10,000 commits and 100k files) beside
//! `git log --follow` on the same repository.
//!
//! The repository is an OKF bundle of 100,000 concepts with 10,000 commits of agent edits
//! (`folio-gen --dialect okf --entities 100000 --git-commits 10000 --seed 1`; 10,000 concepts and
//! 1,000 commits with `FOLIO_BENCH_QUICK=1`), generated once under the temp dir. It times
//! `history::of_entity` on the hot entity (edited in one commit of ten, renamed halfway): the
//! first call (cold: packs and trees not yet cached by the OS or by gitoxide) and warm calls, each
//! on a fresh repository handle, as `folio history` and the TUI's worker make them; then `git log
//! --follow --format=%H -- FILE` on the same file when git is installed, and checks both list the
//! same commits. `FOLIO_BENCH_REPO=DIR` times a repository generated before (for instance a copy
//! packed with `git gc`, as a clone's objects are).
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use folio::r#gen;
use folio::store::Store;
use folio::store::dialect::DialectKind;
use folio::store::keep::history;

const RUNS: usize = 10;

fn sizes() -> (usize, usize) {
    if std::env::var_os("FOLIO_BENCH_QUICK").is_some_and(|v| v == "1") { (10_000, 1_000) } else { (100_000, 10_000) }
}

/// The generated repository and its hot entity, kept between runs.
fn repository(entities: usize, commits: usize) -> (PathBuf, String) {
    // `FOLIO_BENCH_REPO`: one generated before, e.g. then packed with `git gc`.
    let dir = match std::env::var_os("FOLIO_BENCH_REPO") {
        Some(p) => PathBuf::from(p),
        None => std::env::temp_dir().join(format!("folio-bench-history-{entities}-{commits}-seed1")),
    };
    let done = dir.join(".git/folio-generated");
    if !done.exists() {
        let _ = std::fs::remove_dir_all(&dir);
        let started = Instant::now();
        r#gen::generate(DialectKind::Okf, entities, 1, &dir).expect("generate bundle");
        let g = r#gen::git::commit_history(&dir, commits, 1).expect("commit history");
        std::fs::write(&done, &g.hot).expect("mark repository complete");
        eprintln!("generated {} in {:.1} s", dir.display(), started.elapsed().as_secs_f64());
    }
    let hot = std::fs::read_to_string(&done).expect("hot entity");
    (dir, hot)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn git_log_follow(root: &Path, file: &str) -> Option<(f64, Vec<String>)> {
    let run = || {
        Command::new("git")
            .args(["log", "--follow", "--format=%H", "--", file])
            .current_dir(root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .ok()
            .filter(|o| o.status.success())
    };
    let first = run()?;
    let mut times = Vec::new();
    for _ in 0..RUNS {
        let t = Instant::now();
        run()?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let commits = String::from_utf8_lossy(&first.stdout).lines().map(str::to_string).collect();
    Some((median(times), commits))
}

fn main() {
    // `cargo bench` passes `--bench`; a `cargo test --benches` run passes nothing: skip the work.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let (entities, commits) = sizes();
    let (root, hot) = repository(entities, commits);
    let store = Store::load(&root, DialectKind::Okf, "bench".into());
    let idx = store.entities.iter().position(|e| e.path == hot).expect("the hot entity is in the store") as u32;
    let t = Instant::now();
    let first = history::of_entity(&store, idx).expect("history");
    let cold = t.elapsed().as_secs_f64() * 1e3;
    let mut warm = Vec::new();
    for _ in 0..RUNS {
        let t = Instant::now();
        let h = history::of_entity(&store, idx).expect("history");
        warm.push(t.elapsed().as_secs_f64() * 1e3);
        assert_eq!(h.versions.len(), first.versions.len());
    }
    let t = Instant::now();
    let lines = history::blame::blame(&first).len();
    let blame_ms = t.elapsed().as_secs_f64() * 1e3;
    let ours: Vec<String> = first.versions.iter().filter_map(|v| v.commit.clone()).collect();
    println!(
        "history of {hot} ({} versions) in {entities} concepts, {} commits: first {cold:.1} ms, warm median {:.1} ms (min {:.1}, max {:.1}); blame of its {lines} lines {blame_ms:.1} ms",
        ours.len(),
        commits + 1,
        median(warm.clone()),
        warm.iter().copied().fold(f64::INFINITY, f64::min),
        warm.iter().copied().fold(0.0, f64::max),
    );
    match git_log_follow(&root, &hot) {
        Some((ms, theirs)) => {
            println!("git log --follow --format=%H -- {hot}: median {ms:.1} ms");
            assert_eq!(ours, theirs, "folio and git log --follow list different commits");
        }
        None => println!("git log --follow: git is not installed; not compared"),
    }
}
