//! Frame times of the real TUI on a pseudo-terminal (issue 8 target 3, issue 9 responsiveness).
//! folio starts on a store with `FOLIO_FRAME_LOG`; keys are typed while it loads and after
//! (scroll, recall, graph, lint); the log gives the first frame, the time to browsable (the first
//! frame with the store in), and the time the UI thread was busy per frame (events + draw).
//!
//!   cargo bench --bench tui_pty                 # /work/bench/okf-100000, or $FOLIO_BENCH_STORE
//!   cargo bench --bench tui_pty -- --quick      # a generated 1k OKF store (CI smoke, no targets)
//!   cargo bench --bench tui_pty -- --hostile    # the hostile corpus, and 100k files in one folder
//!
//! Prints a markdown table; `folio stats` on the same store, in the same run, is the load time
//! the TUI must be browsable within. Targets are reported (met / MISSED), never asserted.
#[path = "../tests/support/hostile.rs"]
mod hostile_support;
#[path = "../tests/support/tui/pty.rs"]
mod pty;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use pty::{Frame, Pty, keys, read_frame_log};

const SIZE: (u16, u16) = (120, 40);
const FOLIO: &str = env!("CARGO_BIN_EXE_folio");
/// Targets of issue 8.3.
const FIRST_FRAME_MS: f64 = 100.0;
const FRAME_MS: f64 = 50.0;

/// A key and how long to wait after it.
type Step = (&'static [u8], u64);

/// Keys typed while the store loads: navigation and overlays that must not stall anything.
const WHILE_LOADING: [&[u8]; 8] = [b"j", b"k", keys::CTRL_D, b"/", b"p", keys::ESC, b"3", b"1"];

/// Browsing after the load: scroll the catalog, search, open a result, the graph, the lint panel.
fn browsing() -> Vec<Step> {
    let mut s: Vec<Step> = Vec::new();
    s.extend(std::iter::repeat_n((&b"j"[..], 30), 40));
    s.extend(std::iter::repeat_n((keys::CTRL_D, 60), 10));
    s.extend([(&b"G"[..], 200), (b"g", 20), (b"g", 200)]);
    s.push((b"/", 200));
    for c in [b"p", b"a", b"y", b"m", b"e", b"n", b"t"] {
        s.push((c, 80));
    }
    s.extend([(keys::DOWN, 60), (keys::DOWN, 60), (keys::ENTER, 300)]);
    s.push((b"2", 60));
    s.extend(std::iter::repeat_n((keys::PAGE_DOWN, 60), 5));
    s.push((b"3", 300));
    s.extend(std::iter::repeat_n((&b"j"[..], 40), 10));
    s.extend([(&b"+"[..], 300), (b"+", 300), (b"-", 200), (b"-", 200), (keys::ENTER, 300)]);
    s.push((b"4", 500));
    s.extend(std::iter::repeat_n((&b"j"[..], 40), 20));
    s.extend([(&b"b"[..], 300), (b"j", 40), (b"j", 40), (b"1", 100)]);
    s
}

struct Run {
    label: String,
    stats_ms: Option<f64>,
    first_frame_ms: f64,
    browsable_ms: Option<f64>,
    loading: Vec<Frame>,
    ready: Vec<Frame>,
}

fn unix_us() -> u128 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_micros()
}

/// `folio stats` wall time on the store (the load the TUI must be browsable within).
fn stats_ms(store: &Path, extra: &[&str]) -> f64 {
    let started = Instant::now();
    let out = std::process::Command::new(FOLIO)
        .arg("stats")
        .arg(store)
        .args(extra)
        .env("FOLIO_NO_CACHE", "1")
        .output()
        .expect("folio stats");
    assert!(out.status.code().is_some_and(|c| c <= 1), "folio stats failed: {}", String::from_utf8_lossy(&out.stderr));
    started.elapsed().as_secs_f64() * 1000.0
}

/// One session: start folio on `store`, type keys while it loads and `steps` after.
fn session(label: &str, store: &Path, extra: &[&str], steps: &[Step], stats: Option<f64>) -> Run {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("frames.log");
    // No persistent cache: the bench times full loads, and must not leave caches behind.
    let env: [(&str, &OsStr); 4] = [
        ("FOLIO_CONFIG_DIR", tmp.path().as_os_str()),
        ("XDG_DATA_HOME", tmp.path().as_os_str()),
        ("FOLIO_FRAME_LOG", log.as_os_str()),
        ("FOLIO_NO_CACHE", OsStr::new("1")),
    ];
    let mut args: Vec<&OsStr> = vec![store.as_os_str()];
    args.extend(extra.iter().map(OsStr::new));
    let spawned = unix_us();
    let mut p = Pty::spawn(Path::new(FOLIO), &args, &env, SIZE, 1 << 20);
    let deadline = Instant::now() + Duration::from_secs(300);
    let ready = |log: &Path| read_frame_log(log).1.iter().any(|f| f.state != "loading");
    let mut i = 0;
    while !ready(&log) && Instant::now() < deadline {
        p.key(WHILE_LOADING[i % WHILE_LOADING.len()], Duration::from_millis(100));
        i += 1;
    }
    p.key(keys::ESC, Duration::from_millis(150));
    for (key, pause) in steps {
        p.key(key, Duration::from_millis(*pause));
    }
    std::thread::sleep(Duration::from_millis(500));
    // Close whatever is still open (a search with no match keeps the overlay), then quit.
    p.key(keys::ESC, Duration::from_millis(300));
    p.key(keys::ESC, Duration::from_millis(300));
    p.send(b"q");
    let status = p.wait_exit(Duration::from_secs(60));
    if !status.as_ref().is_some_and(|s| s.success()) {
        let log_text = std::fs::read_to_string(&log).unwrap_or_default();
        let tail: Vec<&str> = log_text.lines().rev().take(8).collect();
        let raw = p.raw();
        let end = String::from_utf8_lossy(&raw[raw.len().saturating_sub(600)..]).into_owned();
        panic!("{label}: folio did not quit cleanly ({status:?}); last frames {tail:?}; last output {end:?}");
    }
    let (start, frames) = read_frame_log(&log);
    let start = start.expect("the frame log names its start");
    let offset_ms = (start.saturating_sub(spawned)) as f64 / 1000.0;
    let end_ms = |f: &Frame| offset_ms + f.t_ms + f.draw_us as f64 / 1000.0;
    let first_frame_ms = frames.first().map(end_ms).expect("at least one frame");
    let browsable_ms = frames.iter().find(|f| f.state == "ready").map(end_ms);
    let (loading, ready): (Vec<Frame>, Vec<Frame>) = frames.into_iter().partition(|f| f.state == "loading");
    Run { label: label.to_string(), stats_ms: stats, first_frame_ms, browsable_ms, loading, ready }
}

/// Max and p99 of one measure over some frames, and the frame with the max.
fn spread(frames: &[Frame], measure: fn(&Frame) -> f64) -> (f64, f64, Option<&Frame>) {
    if frames.is_empty() {
        return (0.0, 0.0, None);
    }
    let mut v: Vec<f64> = frames.iter().map(measure).collect();
    v.sort_by(f64::total_cmp);
    let p99 = v[((v.len() as f64 * 0.99).ceil() as usize).clamp(1, v.len()) - 1];
    let worst = frames.iter().max_by(|a, b| measure(a).total_cmp(&measure(b)));
    (v[v.len() - 1], p99, worst)
}

fn verdict(ok: bool) -> &'static str {
    if ok { "met" } else { "MISSED" }
}

fn describe(f: Option<&Frame>) -> String {
    f.map(|f| {
        format!(
            "{} (events {:.1} ms, {:.1} ms CPU; draw {:.1} ms, {:.1} ms CPU)",
            f.trigger,
            f.events_us as f64 / 1000.0,
            f.events_cpu_us as f64 / 1000.0,
            f.draw_us as f64 / 1000.0,
            f.draw_cpu_us as f64 / 1000.0
        )
    })
    .unwrap_or_else(|| "-".into())
}

fn print(runs: &[Run]) {
    println!(
        "| store | folio stats | first frame | browsable | frames loading / after | loading max (p99) | loading CPU max (p99) | after max (p99) | after CPU max (p99) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let ms = |v: Option<f64>| v.map(|v| format!("{v:.0} ms")).unwrap_or_else(|| "-".into());
    for r in runs {
        let (lmax, lp99, _) = spread(&r.loading, Frame::busy_ms);
        let (lcmax, lcp99, _) = spread(&r.loading, Frame::cpu_ms);
        let (rmax, rp99, _) = spread(&r.ready, Frame::busy_ms);
        let (rcmax, rcp99, _) = spread(&r.ready, Frame::cpu_ms);
        println!(
            "| {} | {} | {:.0} ms | {} | {} / {} | {lmax:.1} ({lp99:.1}) ms | {lcmax:.1} ({lcp99:.1}) ms | {rmax:.1} ({rp99:.1}) ms | {rcmax:.1} ({rcp99:.1}) ms |",
            r.label,
            ms(r.stats_ms),
            r.first_frame_ms,
            ms(r.browsable_ms),
            r.loading.len(),
            r.ready.len(),
        );
    }
    println!();
    for r in runs {
        let (lmax, _, lworst) = spread(&r.loading, Frame::busy_ms);
        let (rmax, _, rworst) = spread(&r.ready, Frame::busy_ms);
        let (cmax, _, cworst) = spread(&r.ready, Frame::cpu_ms);
        let browsable = match (r.browsable_ms, r.stats_ms) {
            // 10 % and 50 ms for what the TUI adds: terminal setup, the first tree, the first preview.
            (Some(b), Some(s)) => format!("browsable {b:.0} ms vs stats {s:.0} ms: {}", verdict(b <= s * 1.1 + 50.0)),
            _ => "browsable: not measured".into(),
        };
        println!(
            "{}: first frame ≤ {FIRST_FRAME_MS} ms: {}; {browsable}; frames ≤ {FRAME_MS} ms wall: {}, in CPU: {}",
            r.label,
            verdict(r.first_frame_ms <= FIRST_FRAME_MS),
            verdict(lmax.max(rmax) <= FRAME_MS),
            verdict(cmax.max(spread(&r.loading, Frame::cpu_ms).0) <= FRAME_MS),
        );
        println!("  slowest while loading: {}", describe(lworst));
        println!("  slowest after: {}", describe(rworst));
        println!("  most CPU after: {}", describe(cworst));
        let mut by_cpu: Vec<&Frame> = r.ready.iter().collect();
        by_cpu.sort_by(|a, b| b.cpu_ms().total_cmp(&a.cpu_ms()));
        for f in by_cpu.iter().skip(1).take(4) {
            println!("  next by CPU: {}", describe(Some(f)));
        }
    }
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        println!("\nload average at the end: {}", load.split_whitespace().take(3).collect::<Vec<_>>().join(" "));
    }
}

/// 100k tiny files in one folder (issue 9's directory case), written once per run.
fn many_files(dir: &Path, n: usize) -> PathBuf {
    let root = dir.join("many");
    std::fs::create_dir_all(&root).unwrap();
    for i in 0..n {
        std::fs::write(root.join(format!("n{i:06}.md")), format!("# N{i}\n[[n{:06}]]\n", (i + 1) % n)).unwrap();
    }
    root
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let hostile = args.iter().any(|a| a == "--hostile");
    let steps = browsing();
    let mut runs = Vec::new();
    if hostile {
        let h = hostile_support::build();
        let okf = ["--dialect", "okf"];
        let stats = stats_ms(&h.root, &okf);
        runs.push(session("hostile corpus", &h.root, &okf, &steps, Some(stats)));
        let n = if quick { 10_000 } else { 100_000 };
        let dir = tempfile::tempdir().unwrap();
        let root = many_files(dir.path(), n);
        let vault = ["--dialect", "vault"];
        let stats = stats_ms(&root, &vault);
        runs.push(session(&format!("{n} files in one folder"), &root, &vault, &steps, Some(stats)));
    } else if quick {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("okf-1000");
        folio_gen::generate(folio::store::dialect::okf::KIND, 1000, 1, &root).expect("generate 1k");
        let stats = stats_ms(&root, &[]);
        runs.push(session("okf 1k (generated)", &root, &[], &steps, Some(stats)));
    } else {
        let store = std::env::var_os("FOLIO_BENCH_STORE")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/work/bench/okf-100000"));
        assert!(store.is_dir(), "{} is missing: set FOLIO_BENCH_STORE or use --quick", store.display());
        // Warm the page cache first, as the floor is measured warm.
        stats_ms(&store, &[]);
        let stats = stats_ms(&store, &[]);
        let label = store.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        runs.push(session(&label, &store, &[], &steps, Some(stats)));
    }
    print(&runs);
}
