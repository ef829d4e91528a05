//! Hostile content through every CLI command: a store written by a prompt-injected agent.
//!
//! The corpus is generated in a temp dir (no committed binaries): terminal escape sequences,
//! C0/C1 controls, bidi overrides, zero-width characters, a 10 MB line, 1,000-level nesting,
//! pathological tables, huge frontmatter, YAML bombs, invalid UTF-8 in every field, links out
//! of the store, NUL bytes, symlinks out and in loops, a FIFO, hostile file names.
//! Every command, in text and JSON, must exit normally (never 101, never a signal, never
//! hang), print nothing that drives a terminal, stay within a memory cap, and neither read nor
//! write anything outside the store.
use crate::support;
use support::hostile::*;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Address-space cap for every folio run (rayon threads and malloc arenas reserve a lot of
/// virtual memory; real use on this corpus stays far below it).
const MEMORY_CAP_BYTES: u64 = 2 << 30;
/// A run longer than this is a hang (a FIFO read, an exponential parse): far above what any run
/// takes even on a loaded 2-core machine (the debug build's 100k-file load: 11–14 s in CI).
const TIME_CAP: Duration = Duration::from_secs(300);
/// Every regular file (and symlink, by target text) under `dir`, with its bytes and mtime.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, Option<std::time::SystemTime>)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let ft = e.file_type().unwrap();
            let meta = std::fs::symlink_metadata(e.path()).unwrap();
            if ft.is_dir() {
                stack.push(e.path());
            } else if ft.is_symlink() {
                let target = std::fs::read_link(e.path()).unwrap();
                out.insert(e.path(), (target.as_os_str().as_encoded_bytes().to_vec(), meta.modified().ok()));
            } else if ft.is_file() {
                out.insert(e.path(), (std::fs::read(e.path()).unwrap(), meta.modified().ok()));
            } else {
                out.insert(e.path(), (Vec::new(), meta.modified().ok()));
            }
        }
    }
    out
}

fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().map(|o| o.status.success()).unwrap_or(false)
}

/// Run folio with a time cap and (where `prlimit` exists) an address-space cap.
fn run_capped(args: &[&str]) -> (Output, Duration) {
    let exe = env!("CARGO_BIN_EXE_folio");
    let mut cmd = Command::new("timeout");
    cmd.arg("--signal=KILL").arg(TIME_CAP.as_secs().to_string());
    if have("prlimit") {
        cmd.arg("prlimit").arg(format!("--as={MEMORY_CAP_BYTES}")).arg("--");
    }
    // The run's own data folder: one shared in the temp dir would be raced by parallel tests.
    let own = tempfile::tempdir().unwrap();
    cmd.arg(exe).args(args).env("NO_COLOR", "1").env("XDG_DATA_HOME", own.path());
    // The 100k-file store would leave a cache behind per run; these tests time a full load.
    cmd.env("FOLIO_NO_CACHE", "1");
    let started = Instant::now();
    let out = cmd.output().expect("timeout runs folio");
    (out, started.elapsed())
}

/// What must never appear raw in output: ESC, other C0 (except tab and newline), DEL, C1,
/// bidi overrides and isolates, zero-width characters.
fn first_terminal_hazard(bytes: &[u8]) -> Option<(usize, String)> {
    if let Some(i) = bytes.iter().position(|&b| b < 0x20 && b != b'\n' && b != b'\t' || b == 0x7f) {
        return Some((i, format!("byte {:#04x}", bytes[i])));
    }
    let text = String::from_utf8_lossy(bytes);
    text.char_indices()
        .find(|(_, c)| {
            matches!(c, '\u{80}'..='\u{9f}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
                | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
        })
        .map(|(i, c)| (i, format!("U+{:04X}", c as u32)))
}

fn context(bytes: &[u8], at: usize) -> String {
    let lo = at.saturating_sub(60);
    let hi = (at + 60).min(bytes.len());
    format!("{:?}", String::from_utf8_lossy(&bytes[lo..hi]))
}

/// Run one command and check every guarantee; returns its stdout.
fn check(h: &Hostile, args: &[&str]) -> Vec<u8> {
    let (out, took) = run_capped(args);
    let code = out.status.code();
    assert!(code.is_some(), "folio {args:?} was killed by a signal (hang past {TIME_CAP:?} or memory cap)");
    assert_ne!(code, Some(101), "folio {args:?} panicked: {}", String::from_utf8_lossy(&out.stderr));
    assert_ne!(code, Some(124), "folio {args:?} timed out");
    assert!(matches!(code, Some(0..=2)), "folio {args:?} exited {code:?}: {}", String::from_utf8_lossy(&out.stderr));
    for (name, stream) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        if let Some((at, what)) = first_terminal_hazard(stream) {
            panic!("folio {args:?}: raw {what} on {name} at {at}: {}", context(stream, at));
        }
        let text = String::from_utf8_lossy(stream);
        assert!(!text.contains(SECRET), "folio {args:?}: content from outside the store on {name}");
    }
    let _ = (&h.root, took);
    out.stdout
}

#[test]
fn every_command_survives_hostile_content_and_prints_it_escaped() {
    let h = build();
    let r = h.root.to_str().unwrap();
    let store_before = snapshot(&h.root);
    let outside_before = snapshot(&h.outside);
    let base_entries = |b: &Path| -> Vec<String> {
        std::fs::read_dir(b).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect()
    };
    let base_before = base_entries(&h.base);

    let stats: serde_json::Value = serde_json::from_slice(&check(&h, &["stats", r, "--json", "--dialect", "okf"]))
        .expect("stats --json is valid JSON");
    let expected_entities = hostile_files().len() // generated files, all *.md
        + 6; // abs-link, rel-link, zero, loop-a, loop-b, inside-link (+ pipe/out-pipe/latin counted below)
    let entities = stats["entities"].as_u64().unwrap() as usize;
    assert!(
        entities >= expected_entities,
        "every hostile .md file is an entity (got {entities}, want at least {expected_entities})"
    );

    let graph: serde_json::Value =
        serde_json::from_slice(&check(&h, &["graph", r, "--format", "json", "--dialect", "okf"])).unwrap();
    let ids: Vec<String> =
        graph["nodes"].as_array().unwrap().iter().map(|x| x["id"].as_str().unwrap().to_string()).collect();
    assert_eq!(ids.len(), entities, "the graph holds every entity");
    for id in ["escapes", "controls", "bidi", "long-line", "billion-laughs", "bad-utf8", "links-out", "late-nul"] {
        assert!(ids.iter().any(|i| i == id), "the graph lists `{id}` ({ids:?})");
    }

    for args in [
        vec!["stats", r],
        vec!["graph", r],
        vec!["graph", r, "--format", "mermaid"],
        vec!["graph", r, "--format", "json"],
        vec!["graph", r, "--around", "escapes", "--depth", "2"],
        vec!["recall", r, "pwned"],
        vec!["recall", r, "\u{1b}]0;x"],
        vec!["recall", r, "admin", "--json"],
        vec!["index", r, "--check"],
        vec!["lint", r],
        vec!["lint", r, "--format", "json"],
        vec!["lint", r, "--format", "sarif"],
        vec!["lint", r, "--fix", "--dry-run"],
        vec!["log", r],
        vec!["log", r, "--json"],
    ] {
        let mut a = args.clone();
        a.extend(["--dialect", "okf"]);
        check(&h, &a);
    }
    let light = build_light();
    for id in &ids {
        let heavy = HEAVY.iter().any(|f| f.strip_suffix(".md") == Some(id.as_str()));
        let on = if heavy { &h } else { &light };
        let at = on.root.to_str().unwrap();
        check(on, &["show", at, id, "--dialect", "okf"]);
        let shown = check(on, &["show", at, id, "--json", "--dialect", "okf"]);
        serde_json::from_slice::<serde_json::Value>(&shown).unwrap_or_else(|e| panic!("show {id:?} --json: {e}"));
    }
    // An unknown id made of escapes is echoed escaped in the error.
    check(&h, &["show", r, "\u{1b}[2Jnope\u{202e}", "--dialect", "okf"]);
    // Every dialect reads the same hostile tree.
    for dialect in ["evolve", "aip10", "elophanto", "opendray", "awareness", "vault"] {
        check(&h, &["stats", r, "--json", "--dialect", dialect]);
        check(&h, &["lint", r, "--format", "json", "--dialect", dialect]);
    }

    assert_eq!(snapshot(&h.root), store_before, "read-only commands wrote nothing in the store");
    assert_eq!(snapshot(&h.outside), outside_before, "nothing outside the store was touched");
    assert_eq!(base_entries(&h.base), base_before, "nothing was created beside the store");
}

#[test]
fn hostile_entities_are_flagged_with_the_right_problems() {
    let h = build_light();
    let r = h.root.to_str().unwrap();
    let rules = |id: &str| -> Vec<String> {
        let v: serde_json::Value =
            serde_json::from_slice(&check(&h, &["show", r, id, "--json", "--dialect", "okf"])).unwrap();
        v["problems"].as_array().unwrap().iter().map(|p| p["rule"].as_str().unwrap().to_string()).collect()
    };
    assert!(rules("escapes-raw").contains(&"control-chars".to_string()));
    assert!(rules("controls").contains(&"control-chars".to_string()));
    assert!(rules("bidi").contains(&"control-chars".to_string()));
    assert!(rules("late-nul").contains(&"control-chars".to_string()));
    assert_eq!(rules("early-nul"), ["binary"]);
    assert!(rules("bad-utf8").contains(&"non-utf8".to_string()));
    assert!(rules("billion-laughs").contains(&"invalid-frontmatter".to_string()), "the YAML bomb is refused");
    assert!(rules("deep-flow").contains(&"invalid-frontmatter".to_string()), "recursion limit");
    assert_eq!(rules("abs-link"), ["link-escapes-root"]);
    assert_eq!(rules("rel-link"), ["link-escapes-root"]);
    assert_eq!(rules("zero"), ["link-escapes-root"]);
    assert_eq!(rules("out-pipe"), ["link-escapes-root"]);
    assert_eq!(rules("loop-a"), ["unreadable"]);
    assert_eq!(rules("pipe"), ["unreadable"], "a FIFO is reported, never opened");
    let links: serde_json::Value =
        serde_json::from_slice(&check(&h, &["show", r, "links-out", "--json", "--dialect", "okf"])).unwrap();
    let statuses: Vec<(String, String)> = links["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["target"].as_str().unwrap().to_string(), l["status"].as_str().unwrap().to_string()))
        .collect();
    for (target, status) in &statuses {
        assert_ne!(status, "ok", "{target} must not resolve to anything");
    }
    let status_of = |t: &str| statuses.iter().find(|(x, _)| x == t).map(|(_, s)| s.as_str());
    assert_eq!(status_of("../../../../etc/passwd"), Some("escapes-root"));
    assert_eq!(status_of("../outside/secret.md"), Some("escapes-root"));
}

/// One directory holding many tiny files: loading stays fast and complete.
#[test]
fn a_directory_of_many_files_loads() {
    let files: usize = std::env::var("FOLIO_MANY_FILES").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("store");
    std::fs::create_dir_all(&root).unwrap();
    for i in 0..files {
        std::fs::write(root.join(format!("n{i:06}.md")), format!("# N{i}\n[[n{:06}]]\n", (i + 1) % files)).unwrap();
    }
    let r = root.to_str().unwrap();
    let started = Instant::now();
    let (out, took) = run_capped(&["stats", r, "--json", "--dialect", "vault"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["entities"], files as u64);
    assert_eq!(v["unresolved_links"], 0);
    // How long it took is a benchmark's figure (docs/benchmarks.md), not this test's: a hang is
    // `TIME_CAP`'s kill, which the exit code above reports.
    eprintln!("{files} files in one directory: stats in {took:?} (wall {:?})", started.elapsed());
}
