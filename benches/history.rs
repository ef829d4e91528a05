//! One entity's history (issue 20: under 200 ms warm at 10,000 commits and 100k files) beside
//! `git log --follow` on the same repository.
//!
//! The repository is an OKF bundle of 100,000 concepts with 10,000 commits of agent edits
//! (`folio-gen --dialect okf --entities 100000 --git-commits 10000 --seed 1`; 10,000 concepts and
//! 1,000 commits with `FOLIO_BENCH_QUICK=1`), generated once under the temp dir. It times
//! `history::of_entity` on the hot entity (edited in one commit of ten, renamed halfway) and on
//! the entity the commit before HEAD edited (a handful of versions: the common case): the first
//! call (cold: packs and trees not yet cached by the OS or by gitoxide) and warm calls, each on a
//! fresh repository handle, as `folio history` and the TUI's worker make them; the walk alone;
//! when the TUI's worker makes its first report and its report of the whole list; blame; the heap
//! each takes at its peak (a counting allocator); then `git log --follow --format=%H -- FILE` on the same file when
//! git is installed, and checks both list the same commits. `FOLIO_BENCH_REPO=DIR` times a repository generated before (for instance a copy
//! packed with `git gc`, as a clone's objects are).
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use folio::store::Store;
use folio::store::history;

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
        folio_gen::generate(folio::store::dialect::okf::KIND, entities, 1, &dir).expect("generate bundle");
        let g = folio_gen::git::commit_history(&dir, commits, 1).expect("commit history");
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

/// The entity the commit before HEAD edited (`PATH: note observation N`): one with a handful of
/// versions, the common case, whose history costs the walk through every commit all the same.
fn common_entity(root: &Path) -> Option<String> {
    let repo = gix::open(root).ok()?;
    let head = repo.head_commit().ok()?;
    let parent = repo.find_commit(head.parent_ids().next()?.detach()).ok()?;
    let message = parent.message_raw_sloppy().to_string();
    Some(format!("{}.md", message.split(": note").next()?))
}

/// The system allocator, counting the bytes held and their peak (what blame takes at most).
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = HELD.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// The most memory `f` held at once beyond what was held before it, in bytes.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = HELD.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed) - before)
}

/// The first call and `RUNS` warm calls of `f`, in milliseconds.
fn timed<T>(mut f: impl FnMut() -> T) -> (f64, Vec<f64>, T) {
    let t = Instant::now();
    let first = f();
    let cold = t.elapsed().as_secs_f64() * 1e3;
    let warm = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    (cold, warm, first)
}

fn spread(warm: &[f64]) -> String {
    format!(
        "warm median {:.1} ms (min {:.1}, max {:.1})",
        median(warm.to_vec()),
        warm.iter().copied().fold(f64::INFINITY, f64::min),
        warm.iter().copied().fold(0.0, f64::max)
    )
}

/// Times one entity's history: the walk alone, the whole answer, the first partial report and
/// the report at the walk's end (what the TUI pane shows before the answer), and blame.
fn bench_entity(store: &Store, root: &Path, file: &str, commits: usize) {
    let idx = store.entities.iter().position(|e| e.path == file).expect("the entity is in the store") as u32;
    let (_, walk, _) = timed(|| {
        let repo = history::git::open(root).expect("open").expect("a repository");
        repo.file_history(file, &mut |_| Ok(())).expect("walk").len()
    });
    let (cold, warm, first) = timed(|| history::of_entity(store, idx).expect("history"));
    let (mut first_report, mut walk_done) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let t = Instant::now();
        let mut reports: Vec<f64> = Vec::new();
        let mut report = |_: history::History| reports.push(t.elapsed().as_secs_f64() * 1e3);
        let progress = history::Progress { every: std::time::Duration::from_millis(50), report: &mut report };
        history::of_entity_reporting(store, idx, Some(progress)).expect("history");
        first_report.push(reports[0]);
        walk_done.push(*reports.last().expect("a report at the walk's end"));
    }
    let t = Instant::now();
    let (lines, blame_peak) = peak_of(|| history::blame::blame(&first).len());
    let blame_ms = t.elapsed().as_secs_f64() * 1e3;
    let ((), history_peak) = peak_of(|| drop(history::of_entity(store, idx).expect("history")));
    let mb = |b: usize| b as f64 / (1024.0 * 1024.0);
    let ours: Vec<String> = first.versions.iter().filter_map(|v| v.commit.clone()).collect();
    println!("history of {file} ({} versions), {} commits:", ours.len(), commits + 1);
    println!("  walk alone (the commits, no contents): {}", spread(&walk));
    println!("  whole answer: first {cold:.1} ms, {}", spread(&warm));
    println!(
        "  first partial report: median {:.1} ms; the walk's end: median {:.1} ms",
        median(first_report),
        median(walk_done)
    );
    println!("  heap at its peak: history {:.1} MB; blame {:.1} MB more", mb(history_peak), mb(blame_peak));
    println!("  blame of its {lines} lines: {blame_ms:.1} ms");
    match git_log_follow(root, file) {
        Some((ms, theirs)) => {
            println!("  git log --follow --format=%H -- {file}: median {ms:.1} ms");
            assert_eq!(ours, theirs, "folio and git log --follow list different commits");
        }
        None => println!("  git log --follow: git is not installed; not compared"),
    }
}

fn main() {
    // `cargo bench` passes `--bench`; a `cargo test --benches` run passes nothing: skip the work.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let (entities, commits) = sizes();
    let (root, hot) = repository(entities, commits);
    let store = Store::load(&root, folio::store::dialect::okf::KIND, "bench".into());
    println!("{entities} concepts in {}", root.display());
    bench_entity(&store, &root, &hot, commits);
    match common_entity(&root) {
        Some(common) => bench_entity(&store, &root, &common, commits),
        None => println!("no entity edited by the commit before HEAD: the common case is not measured"),
    }
}
