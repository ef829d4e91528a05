//! The persistent cache and live reload at scale (issue 8, targets 2 and 5), on a copy of an
//! OKF bundle: full load, cache write, re-open from the cache (warm page cache, and cold when
//! `/proc/sys/vm/drop_caches` may be written), the stat walk that validates it, and an agent
//! rewriting 100 files while the store is watched: time from the last write until the
//! refreshed store is ready, and how many files were parsed. Prints a markdown table.
//!
//!   cargo bench --bench cache                       (a generated 10k bundle)
//!   FOLIO_BENCH_STORE=/work/bench/okf-100000 cargo bench --bench cache
//!
//! Timings are wall clock on a shared machine: compare runs made in the same minute.
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use folio::store::keep::cache::{self, Cache};
use folio::store::{Store, keep::watch};

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let work = tempfile::tempdir().expect("temp dir");
    let store_dir = work.path().join("store");
    match std::env::var_os("FOLIO_BENCH_STORE") {
        Some(src) => copy_tree(Path::new(&src), &store_dir),
        None => {
            folio_gen::generate(folio::store::dialect::okf::KIND, 10_000, 1, &store_dir).expect("generate");
        }
    }
    // Files written within 2 s of a snapshot are re-read on every check (mtime granularity):
    // let the copy age as a real store would have.
    std::thread::sleep(Duration::from_millis(2500));
    let cache = Cache::new(work.path().join("cache"));
    // The app finds the cache through the environment; set before any thread starts.
    unsafe { std::env::set_var("FOLIO_CACHE_DIR", cache.dir()) };
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut row = |what: &str, value: String| {
        eprintln!("{what}: {value}");
        rows.push((what.to_string(), value));
    };

    let t = Instant::now();
    let store = Store::load(&store_dir, folio::store::dialect::okf::KIND, "bench".into());
    row("full load (Store::load, warm)", ms(t.elapsed()));
    let n = store.entities.len();
    row("entities", n.to_string());

    let t = Instant::now();
    let file = cache.save(&store).expect("save cache");
    row("cache write", ms(t.elapsed()));
    let size = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
    row("cache file", format!("{:.1} MB ({} bytes/entity)", size as f64 / 1e6, size / n.max(1) as u64));
    drop(store);

    let mut warm = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let s = cache.load(&store_dir, folio::store::dialect::okf::KIND, "bench".into()).expect("cache hit");
        warm.push(t.elapsed());
        assert_eq!(s.entities.len(), n);
    }
    row("open from cache, warm (median of 5)", ms(median(&mut warm)));
    let cached = cache.load(&store_dir, folio::store::dialect::okf::KIND, "bench".into()).expect("cache hit");
    let t = Instant::now();
    let v = cache::validate::validate(&cached);
    row(
        "validate (walk + stat), warm",
        format!("{} ({} files, {} to re-read)", ms(t.elapsed()), v.checked, v.paths.len()),
    );
    drop(cached);

    row("TUI from the cache: start → store browsable, warm", ms(app_from_cache(&store_dir)));

    if drop_caches() {
        row("TUI from the cache: start → store browsable, cold", ms(app_from_cache(&store_dir)));
        drop_caches();
        let t = Instant::now();
        let s = cache.load(&store_dir, folio::store::dialect::okf::KIND, "bench".into()).expect("cache hit");
        row("open from cache, cold page cache", ms(t.elapsed()));
        drop_caches();
        let t = Instant::now();
        let v = cache::validate::validate(&s);
        row("validate (walk + stat), cold", format!("{} ({} to re-read)", ms(t.elapsed()), v.paths.len()));
        drop_caches();
        let t = Instant::now();
        let full = Store::load(&store_dir, folio::store::dialect::okf::KIND, "bench".into());
        row("full load, cold page cache", ms(t.elapsed()));
        drop(full);
    } else {
        row("cold page cache", "skipped (cannot write /proc/sys/vm/drop_caches)".into());
    }

    live_reload(&store_dir, &mut row);

    println!("\n| step | result |\n|---|---|");
    for (k, v) in rows {
        println!("| {k} | {v} |");
    }
}

/// An agent rewrites 100 entity files while the store is watched: the refresh re-reads only
/// what the watcher reported.
fn live_reload(root: &Path, row: &mut impl FnMut(&str, String)) {
    let root = root.canonicalize().expect("canonical root");
    let mut store = Store::load(&root, folio::store::dialect::okf::KIND, "bench".into());
    let t = Instant::now();
    let copy = store.entities.clone();
    row("  (a copy of the entity vector)", ms(t.elapsed()));
    let t = Instant::now();
    drop(copy);
    row("  (dropping that copy)", ms(t.elapsed()));
    let t = Instant::now();
    let resolver =
        folio::store::read::resolve::Resolver::new(&store.entities, store.other_files.iter().map(|(p, _)| p.as_str()));
    row("  (building the link resolver)", ms(t.elapsed()));
    drop(resolver);
    let victims: Vec<String> =
        store.entities.iter().step_by((store.entities.len() / 100).max(1)).take(100).map(|e| e.path.clone()).collect();
    let (tx, rx) = mpsc::channel();
    let _w = watch::watch(&root, move |paths| {
        let _ = tx.send((Instant::now(), paths));
    })
    .expect("watch");
    std::thread::sleep(Duration::from_millis(300));
    // Two rounds: prose edits (the links stay: no resolver needed), then each file gains a link.
    let rounds: [(&str, &str); 2] = [
        ("prose", "\nEdited by the bench agent.\n"),
        ("new link", "\nEdited by the bench agent: see [the index](index.md).\n"),
    ];
    let mut ready = Duration::ZERO;
    for (name, addition) in rounds {
        for rel in &victims {
            let p = root.join(rel);
            let mut text = std::fs::read_to_string(&p).expect("read victim");
            text.push_str(addition);
            std::fs::write(&p, text).expect("rewrite");
        }
        let last_write = Instant::now();
        let mut parsed = 0;
        let mut seen = std::collections::HashSet::new();
        let mut refresh_total = Duration::ZERO;
        let mut events = 0;
        let mut relinked_all = false;
        while seen.len() < victims.len() {
            let Ok((_, mut paths)) = rx.recv_timeout(Duration::from_secs(20)) else { break };
            // As the TUI does: batches that arrived while a refresh ran are taken together.
            while let Ok((_, more)) = rx.try_recv() {
                paths.extend(more);
            }
            events += 1;
            let t = Instant::now();
            let (fresh, report) = store.refreshed(&paths);
            refresh_total += t.elapsed();
            parsed += report.parsed;
            relinked_all |= report.relinked_all;
            seen.extend(report.changed.iter().cloned());
            store = fresh;
        }
        ready = last_write.elapsed();
        row(
            &format!("live reload ({name}): files rewritten / reported / parsed"),
            format!("{} / {} / {parsed}", victims.len(), seen.len()),
        );
        row(
            &format!("live reload ({name}): refreshes / time in refresh"),
            format!("{events} / {}{}", ms(refresh_total), if relinked_all { " (all links re-resolved)" } else { "" }),
        );
        row(&format!("live reload ({name}): last write → refreshed store ready"), ms(ready));
    }
    // An agent deleting notes (and a verdict archiving a database's node): a removal.
    let gone: Vec<String> = victims.iter().step_by(20).cloned().collect();
    for rel in &gone {
        std::fs::remove_file(root.join(rel)).expect("delete victim");
    }
    let paths: Vec<_> = gone.iter().map(|g| root.join(g)).collect();
    let mut times = Vec::new();
    let mut relinked_all = false;
    for _ in 0..5 {
        let t = Instant::now();
        let (fresh, report) = store.refreshed(&paths);
        drop(fresh);
        times.push(t.elapsed());
        relinked_all |= report.relinked_all;
        assert_eq!(report.removed.len(), gone.len());
    }
    times.sort();
    row(
        &format!("live reload ({} files deleted): refresh and drop, median of 5", gone.len()),
        format!("{}{}", ms(times[2]), if relinked_all { " (all links re-resolved)" } else { "" }),
    );
    // What the UI thread then does with it (catalog rebuild, selection, effects spawned).
    let mut app = ui_on(&root);
    let old = app.model.store.clone().expect("loaded");
    let (fresh, report) = old.refreshed(&victims.iter().map(|v| root.join(v)).collect::<Vec<_>>());
    // The refresh job builds the catalog tree beside the store when it changed.
    let tree = folio::app::tree::built::beside(&old, &fresh, &folio::app::tree::built::catalog(&app.model));
    drop(old);
    let t = Instant::now();
    app.handle(folio::app::event::Event::Refreshed(Box::new(fresh), report, Vec::new(), tree));
    let on_ui = t.elapsed();
    let visible = ready + on_ui;
    row("live reload: UI thread applying the refreshed store", ms(on_ui));
    row("live reload (new link): last write → visible", ms(visible));
}

/// The real app opening `root` through the cache: time until the store is in the model and
/// the catalog built from it (the check of its files goes on in the background).
fn app_from_cache(root: &Path) -> Duration {
    use folio::app::settings::config::{self, ColorChoice};
    let mut settings = config::load(None, ColorChoice::Never, false, None);
    settings.config.watch = false;
    let started = Instant::now();
    let source = folio::app::jobs::Source { path: Some(root.to_path_buf()), ..Default::default() };
    let mut app = folio::app::App::new(source, settings, false);
    app.handle(folio::app::event::Event::Resize(120, 40));
    while app.model.store.is_none() {
        app.wait(Duration::from_millis(5));
    }
    let browsable = started.elapsed();
    assert!(app.model.store.as_ref().is_some_and(|s| s.from_cache), "opened from the cache");
    assert!(!app.model.rows.is_empty(), "the catalog is built");
    // Let the background check (walk + stat) finish before the next measurement.
    std::thread::sleep(Duration::from_secs(6));
    app.drain();
    browsable
}

/// The real app (effects on threads, as in the terminal) on `root`, loaded without the cache.
fn ui_on(root: &Path) -> folio::app::App {
    use folio::app::settings::config::{self, ColorChoice};
    let mut settings = config::load(None, ColorChoice::Never, false, None);
    settings.config.watch = false;
    settings.config.cache = false;
    let source = folio::app::jobs::Source { path: Some(root.to_path_buf()), ..Default::default() };
    let mut app = folio::app::App::new(source, settings, false);
    app.handle(folio::app::event::Event::Resize(120, 40));
    app.settle(Duration::from_secs(600));
    app
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn drop_caches() -> bool {
    let _ = std::process::Command::new("sync").status();
    std::fs::write("/proc/sys/vm/drop_caches", "3\n").is_ok()
}

fn copy_tree(from: &Path, to: &Path) {
    let status = std::process::Command::new("cp").arg("-r").arg(from).arg(to).status().expect("cp");
    assert!(status.success(), "cp -r {} {}", from.display(), to.display());
    let _ = std::process::Command::new("chmod").args(["-R", "u+w"]).arg(to).status();
}
