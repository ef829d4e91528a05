//! Recall latency as a person at the TUI sees it, at 100,000 entities (10,000 with
//! `FOLIO_BENCH_QUICK=1`): the real app (inline = false: background load, the streaming engine on
//! its own threads), the real keymap and key handling, frames drawn into a buffer the way the
//! terminal loop draws them, and the loop's own wait between frames (`App::poll_timeout`).
//!
//! For every keystroke (typing a query, erasing it, filters) it records, from the key event:
//! - handle: the key's `update` (the UI thread's own cost, including starting the match);
//! - echo: the next frame drawn, which shows the typed character;
//! - first: the first frame showing results of the new query (issue 5: ≤ 16 ms median, ≤ 50 ms p99);
//! - complete: the first frame showing the final ranking (issue 8.4: ≤ 30 ms median, ≤ 60 ms p99);
//! - CPU to complete: CPU time of every thread over the same span (the work, whatever the load:
//!   on a shared machine wall figures wait for cores; on an idle 2-core machine they approach
//!   CPU / 2 for the matching part).
//!
//! The store is `FOLIO_BENCH_STORE` if set (a generated bundle such as `folio-gen --dialect okf
//! --entities 100000 --seed 1`), else that bundle generated once under the temp dir.
//! `FOLIO_BENCH_VERBOSE=1` prints every keystroke.
use std::path::PathBuf;
use std::time::{Duration, Instant};

use folio::app::App;
use folio::app::action::Action;
use folio::app::event::Event;
use folio::app::jobs::Source;
use folio::app::settings::config::{self, ColorChoice};
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;

/// What a person types (each typed, then erased back to its first word): words of the generated
/// corpus, a typo-ish fuzzy query, a number, filters.
const QUERIES: &[&str] =
    &["gross margin", "daily rev", "hot index 93", "stale snapshot", "kind:metric churn", "tag:latency cold"];
/// The terminal the frames are drawn for.
const SIZE: (u16, u16) = (120, 40);
/// The terminal loop's idle input poll (crates/folio-tui/src/tui).
const IDLE_POLL: Duration = Duration::from_millis(30);

fn entities() -> usize {
    if std::env::var_os("FOLIO_BENCH_QUICK").is_some_and(|v| v == "1") { 10_000 } else { 100_000 }
}

/// The generated OKF bundle, kept between runs under the temp dir (the same one `benches/load.rs` uses).
fn bundle(n: usize) -> PathBuf {
    if let Some(p) = std::env::var_os("FOLIO_BENCH_STORE") {
        return PathBuf::from(p);
    }
    let dir = std::env::temp_dir().join(format!("folio-bench-okf-{n}-seed1"));
    let done = dir.join(".generated");
    if !done.exists() {
        let _ = std::fs::remove_dir_all(&dir);
        folio_gen::generate(folio::store::dialect::okf::KIND, n, 1, &dir).expect("generate bundle");
        std::fs::write(&done, "").expect("mark bundle complete");
    }
    dir
}

fn draw(app: &mut App) {
    let mut buf = Buffer::empty(Rect::new(0, 0, SIZE.0, SIZE.1));
    folio::ui::draw(&app.model, buf.area, &mut buf);
    app.dirty = false;
}

/// CPU time of the whole process (every thread) so far.
fn cpu() -> Duration {
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage only writes the struct it is given.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// One keystroke's figures.
struct Sample {
    query: String,
    kind: &'static str,
    handle: Duration,
    echo: Duration,
    first: Duration,
    complete: Duration,
    /// CPU time of all threads from the key to the final ranking drawn.
    cpu: Duration,
    matched: usize,
}

/// Press `code`, then run the terminal loop (draw when dirty, wait `poll_timeout`, handle
/// events) until the final ranking of the new query has been drawn.
fn keystroke(app: &mut App, code: KeyCode, kind: &'static str) -> Sample {
    let (t, cpu_at) = (Instant::now(), cpu());
    app.handle(Event::Key(KeyEvent::new(code, KeyModifiers::empty())));
    let handle = t.elapsed();
    draw(app);
    let echo = t.elapsed();
    let mut first = None;
    loop {
        let engine = app.model.recall.as_ref().expect("recall engine");
        let (fresh, done) = (engine.fresh(), !engine.running());
        if fresh && first.is_none() {
            first = Some(t.elapsed());
        }
        if fresh && done {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(60), "recall never finished");
        // No input arrives while waiting: the loop's input poll runs to its timeout.
        std::thread::sleep(app.poll_timeout(IDLE_POLL));
        app.drain();
        if app.dirty {
            draw(app);
        }
    }
    let complete = t.elapsed();
    let cpu = cpu() - cpu_at;
    let query = match app.model.overlays.last() {
        Some(folio::app::model::Overlay::Recall { query, .. }) => query.clone(),
        _ => String::new(),
    };
    let matched = app.model.recall.as_ref().map(|e| e.matched()).unwrap_or(0);
    Sample { query, kind, handle, echo, first: first.unwrap_or(complete), complete, cpu, matched }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn report(label: &str, samples: &[&Sample]) {
    if samples.is_empty() {
        return;
    }
    let stat = |f: &dyn Fn(&Sample) -> Duration| {
        let mut v: Vec<Duration> = samples.iter().map(|s| f(s)).collect();
        v.sort();
        let pct = |p: f64| ms(v[((v.len() - 1) as f64 * p).round() as usize]);
        format!("{:>6.1} {:>6.1} {:>6.1}", pct(0.5), pct(0.99), ms(*v.last().unwrap()))
    };
    println!(
        "{label:<10} {:>5} | {} | {} | {} | {} | {}",
        samples.len(),
        stat(&|s| s.handle),
        stat(&|s| s.echo),
        stat(&|s| s.first),
        stat(&|s| s.complete),
        stat(&|s| s.cpu)
    );
}

fn main() {
    let n = entities();
    let root = bundle(n);
    let started = Instant::now();
    let mut settings = config::load(None, ColorChoice::Always, false, None);
    settings.config.watch = false;
    let mut app = App::new(Source { path: Some(root.clone()), no_cache: true, ..Source::default() }, settings, false);
    app.handle(Event::Resize(SIZE.0, SIZE.1));
    app.settle(Duration::from_secs(600));
    let loaded = app.model.store.as_ref().map(|s| s.entities.len()).unwrap_or(0);
    assert!(loaded >= n, "{} holds {loaded} entities, fewer than {n}", root.display());
    // Lint runs after loading; let it finish so it does not compete with the keystrokes.
    while app.model.linting {
        app.wait(Duration::from_millis(50));
    }
    eprintln!("loaded and linted {loaded} entities from {} in {:.1?}", root.display(), started.elapsed());
    let t = Instant::now();
    app.act(Action::Recall);
    // The engine builds its items once per store; the first query waits for them.
    keystroke(&mut app, KeyCode::Char('a'), "ready");
    keystroke(&mut app, KeyCode::Backspace, "ready");
    eprintln!("recall ready (items built, first query answered) in {:.1?}", t.elapsed());

    let verbose = std::env::var_os("FOLIO_BENCH_VERBOSE").is_some_and(|v| v == "1");
    let rounds = if n < 100_000 { 2 } else { 3 };
    let mut samples = Vec::new();
    for _ in 0..rounds {
        for q in QUERIES {
            let chars: Vec<char> = q.chars().collect();
            let first_word = q.split(' ').next().unwrap_or("").chars().count();
            for (i, &c) in chars.iter().enumerate() {
                let kind = if q.contains(':') && i < first_word { "filter" } else { "type" };
                samples.push(keystroke(&mut app, KeyCode::Char(c), kind));
            }
            for _ in first_word..chars.len() {
                samples.push(keystroke(&mut app, KeyCode::Backspace, "erase"));
            }
            for _ in 0..first_word {
                samples.push(keystroke(&mut app, KeyCode::Backspace, "clear"));
            }
        }
    }
    if verbose {
        for s in &samples {
            println!(
                "{:<7} {:<20} handle {:>6.2} echo {:>6.2} first {:>6.1} complete {:>6.1} cpu {:>6.1} ms  {} matches",
                s.kind,
                format!("{:?}", s.query),
                ms(s.handle),
                ms(s.echo),
                ms(s.first),
                ms(s.complete),
                ms(s.cpu),
                s.matched
            );
        }
    }
    println!("recall at {loaded} entities, {} keystrokes, {}x{} frames", samples.len(), SIZE.0, SIZE.1);
    println!(
        "{:<10} {:>5} | {:^20} | {:^20} | {:^20} | {:^20} | {:^20}",
        "ms", "keys", "handle", "echo", "first", "complete", "CPU to complete"
    );
    println!("{:<10} {:>5} | {2:^20} | {2:^20} | {2:^20} | {2:^20} | {2:^20}", "", "", "median p99 max");
    // Keystrokes that search (not the ones clearing the prompt, which only list recent queries).
    let searching: Vec<&Sample> = samples.iter().filter(|s| !s.query.trim().is_empty()).collect();
    report("all", &searching);
    for kind in ["type", "erase", "filter"] {
        report(kind, &searching.iter().copied().filter(|s| s.kind == kind).collect::<Vec<_>>());
    }
}
