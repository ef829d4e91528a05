//! Hostile content through every CLI command: a store written by a prompt-injected agent.
//!
//! The corpus is generated in a temp dir (no committed binaries): terminal escape sequences,
//! C0/C1 controls, bidi overrides, zero-width characters, a 10 MB line, 1,000-level nesting,
//! pathological tables, huge frontmatter, YAML bombs, invalid UTF-8 in every field, links out
//! of the store, NUL bytes, symlinks out and in loops, a FIFO, hostile file names.
//! Every command, in text and JSON, must exit normally (never 101, never a signal, never
//! hang), print nothing that drives a terminal, stay within a memory cap, and neither read nor
//! write anything outside the store.
mod common;
use common::*;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Address-space cap for every folio run (rayon threads and malloc arenas reserve a lot of
/// virtual memory; real use on this corpus stays far below it).
const MEMORY_CAP_BYTES: u64 = 2 << 30;
/// A run longer than this is a hang (a FIFO read, an exponential parse).
const TIME_CAP: Duration = Duration::from_secs(60);
/// Text that lives only outside the store: seeing it in any output means folio read it.
const SECRET: &str = "OUTSIDE-SECRET-7f3a";

/// Escape sequences agents could plant: clear screen, set title, OSC 52 clipboard write,
/// OSC 8 hyperlink, DCS, CSI via C1.
const ESCAPES: &str = "\x1b[2J\x1b[H\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\\x1bP+q544e\x1b\\\u{9b}31m";
const BIDI_AND_ZERO_WIDTH: &str =
    "admin\u{202e}txt.exe\u{202c} \u{2066}iso\u{2069} zero\u{200b}\u{200d}\u{2060}\u{feff}width";

fn c0_and_c1() -> String {
    let c0: String = (0u8..0x20).filter(|b| !matches!(b, b'\t' | b'\n' | 0)).map(char::from).collect();
    let c1: String = (0x80u32..0xa0).filter_map(char::from_u32).collect();
    format!("{c0}\u{7f}{c1}")
}

fn nested(prefix: impl Fn(usize) -> String, depth: usize) -> String {
    (0..depth).map(|d| format!("{}item {d}\n", prefix(d))).collect()
}

/// Every hostile file, by relative path.
fn hostile_files() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut add = |rel: &str, bytes: Vec<u8>| files.push((rel.to_string(), bytes));
    let note = |title: &str, body: &str| {
        format!("---\ntype: Note\ntitle: {title}\ndescription: d\n---\n{body}\n").into_bytes()
    };
    // The catalog links to every hostile entity so they are not orphans and links get resolved.
    add("index.md", b"* [Escapes](escapes.md) - \x1b]0;index title\x07\n* [Controls](controls.md) - c\n".to_vec());
    add(
        "escapes.md",
        format!(
            "---\ntype: \"Note{e}\"\ntitle: \"{t}\"\ndescription: \"{t}\"\ntags: [\"{t}\", plain]\naliases: [\"{t}\"]\n\"key{t}\": v\n---\n# Heading {e}\n\nBody {e} and [link {e}](target{e}.md) and [[wiki{e}]].\n",
            e = ESCAPES,
            t = ESCAPES.replace('\\', "\\\\").replace('"', "\\\"").replace('\x1b', "\\e").replace('\x07', "\\a"),
        )
        .into_bytes(),
    );
    add("escapes-raw.md", note("raw", &format!("title line\n\n{ESCAPES}\n\n[x{ESCAPES}](y{ESCAPES}.md)")));
    let controls = c0_and_c1();
    add("controls.md", note("Controls", &format!("before {controls} after")));
    add(
        "bidi.md",
        note(
            &format!("\"{BIDI_AND_ZERO_WIDTH}\""),
            &format!("{BIDI_AND_ZERO_WIDTH}\n[{BIDI_AND_ZERO_WIDTH}](bidi.md)"),
        ),
    );
    let long = "a".repeat(10 * 1024 * 1024);
    add("long-line.md", note("Long", &long));
    add("nested-lists.md", note("Lists", &nested(|d| format!("{}- ", "  ".repeat(d)), 1000)));
    add("nested-quotes.md", note("Quotes", &nested(|d| format!("{} ", ">".repeat(d + 1)), 1000)));
    add("nested-brackets.md", note("Brackets", &format!("{}x{}", "[".repeat(5000), "](a.md)".repeat(5000))));
    let wide_row = format!("|{}\n", "x|".repeat(5000));
    let table = format!("{wide_row}|{}\n{}", "-|".repeat(5000), wide_row.repeat(200));
    add("table.md", note("Table", &format!("{table}\n{}", "|\n".repeat(50_000))));
    let many_keys: String = (0..100_000).map(|i| format!("k{i}: value {i}\n")).collect();
    add("huge-frontmatter.md", format!("---\ntype: Note\ntitle: Huge\n{many_keys}---\nbody\n").into_bytes());
    let laughs = "---\ntype: Note\ntitle: Laughs\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\ntags: *i\n---\nbody\n";
    add("billion-laughs.md", laughs.as_bytes().to_vec());
    let deep_flow =
        format!("---\ntype: Note\ntitle: Deep\ndeep: {}{}\n---\nbody\n", "[".repeat(100_000), "]".repeat(100_000));
    add("deep-flow.md", deep_flow.into_bytes());
    let deep_block: String = (0..2000).map(|d| format!("{}k{d}:\n", " ".repeat(d))).collect();
    add("deep-block.md", format!("---\ntype: Note\ntitle: DeepBlock\n{deep_block}---\nbody\n").into_bytes());
    let anchors: String = (1..2000).map(|i| format!("a{i}: &x{i} [*x{}, *x{}]\n", i - 1, i - 1)).collect();
    add("deep-anchors.md", format!("---\ntype: Note\ntitle: Anchors\na0: &x0 [x]\n{anchors}---\nbody\n").into_bytes());
    // Invalid UTF-8 in the key, the title, the description, a tag, the body and a link target.
    add(
        "bad-utf8.md",
        b"---\ntype: No\xfete\nti\xfftle: T\xc3\nDescription: \xe2\x82\ntitle: caf\xe9\ndescription: \xed\xa0\x80surrogate\ntags: [a\x80b]\n---\nBody \xf8\x88\x80\x80\x80 and [l\xc0\xafnk](ta\xffrget.md)\n".to_vec(),
    );
    add(
        "links-out.md",
        note(
            "Links out",
            "[up](../../../../etc/passwd) [up2](../outside/secret.md) [abs](/etc/passwd) [file](file:///etc/passwd) \
             [[../outside/secret]] [[/etc/passwd]] [enc](%2e%2e/%2e%2e/outside/secret.md) [nul](a%00b.md)",
        ),
    );
    // NUL bytes past the binary-detection probe: the file is parsed as text.
    let mut late_nul = note("Late NUL", &"x".repeat(9000));
    late_nul.extend_from_slice(b"\0\0 after nul [n](n\0ul.md)\n");
    add("late-nul.md", late_nul);
    add("early-nul.md", b"---\ntype: Note\0\ntitle: NUL\n---\n".to_vec());
    // Hostile file names: a newline, an escape sequence, a bidi override.
    add("new\nline.md", note("Newline name", "x"));
    add("esc\x1b]0;name\x07\x1b[31m.md", note("Escape name", "x"));
    add("bidi\u{202e}dm.md", note("Bidi name", "x"));
    add("sub/deep/linker.md", note("Linker", "[nl](../../new%0Aline.md) [[esc\x1b[31m]]"));
    files
}

struct Hostile {
    _tmp: tempfile::TempDir,
    base: PathBuf,
    root: PathBuf,
    outside: PathBuf,
}

/// The files that make every load slow (megabytes each); `show` runs on a store without them
/// for every other entity, to keep the test within CI time.
const HEAVY: [&str; 8] = [
    "long-line.md",
    "nested-lists.md",
    "nested-quotes.md",
    "nested-brackets.md",
    "table.md",
    "huge-frontmatter.md",
    "deep-anchors.md",
    "deep-block.md",
];

fn build() -> Hostile {
    build_with(|_| true)
}

fn build_light() -> Hostile {
    build_with(|rel| !HEAVY.contains(&rel))
}

fn build_with(keep: impl Fn(&str) -> bool) -> Hostile {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().to_path_buf();
    let root = base.join("store");
    let outside = base.join("outside");
    write(&outside, "secret.md", format!("---\ntype: Note\ntitle: {SECRET}\n---\n{SECRET}\n"));
    write(&outside, "dir/inner.md", format!("# {SECRET}\n"));
    for (rel, bytes) in hostile_files().into_iter().filter(|(rel, _)| keep(rel)) {
        write(&root, &rel, bytes);
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        use std::os::unix::fs::symlink;
        symlink(outside.join("secret.md"), root.join("abs-link.md")).unwrap();
        symlink("../outside/secret.md", root.join("rel-link.md")).unwrap();
        symlink("../outside/dir", root.join("dir-link")).unwrap();
        symlink("/dev/zero", root.join("zero.md")).unwrap();
        symlink("loop-b.md", root.join("loop-a.md")).unwrap();
        symlink("loop-a.md", root.join("loop-b.md")).unwrap();
        symlink(".", root.join("self-loop")).unwrap();
        symlink("..", root.join("parent-loop")).unwrap();
        symlink("index.md", root.join("inside-link.md")).unwrap();
        // A file name that is not UTF-8 at all.
        std::fs::write(root.join(std::ffi::OsStr::from_bytes(b"latin\xe9.md")), "# latin name\n").unwrap();
        // A FIFO: reading it blocks forever, so folio must not open it.
        let fifo = root.join("pipe.md");
        let status = Command::new("mkfifo").arg(&fifo).status();
        assert!(status.map(|s| s.success()).unwrap_or(false), "mkfifo is needed for the FIFO case");
        let outside_fifo = outside.join("pipe.md");
        Command::new("mkfifo").arg(&outside_fifo).status().unwrap();
        symlink(&outside_fifo, root.join("out-pipe.md")).unwrap();
    }
    Hostile { _tmp: tmp, base, root, outside }
}

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
    cmd.arg(exe).args(args).env("NO_COLOR", "1").env("XDG_DATA_HOME", std::env::temp_dir().join("folio-test-data"));
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
    assert!(took < TIME_CAP, "{args:?} took {took:?}");
    let _ = &h.root;
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
    eprintln!("{files} files in one directory: stats in {took:?} (wall {:?})", started.elapsed());
    assert!(took < Duration::from_secs(60), "{files} files took {took:?}");
}
