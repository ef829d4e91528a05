//! Lint's memo through the CLI: after each edit, creation, deletion, rename and lint-config
//! change, `lint --format json` through the cache (the memo's findings where they still hold,
//! the rest computed again) says byte for byte what a lint without the cache says, and again on
//! the unchanged run after it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

/// A wild vault (issue 44's shape) above the size where LSH takes over from comparing every
/// pair, its files written an hour ago, and its own cache folder.
struct Setup {
    _dir: tempfile::TempDir,
    store: PathBuf,
    cache: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("vault");
    let vault = folio::store::dialect::vault::KIND;
    folio_gen::generate_shaped(vault, 700, 11, &store, folio_gen::Shape::Wild).unwrap();
    for f in notes(&store) {
        aged(&f, 3600);
    }
    let cache = dir.path().join("cache");
    Setup { _dir: dir, store, cache }
}

/// The notes of the store, sorted.
fn notes(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                if !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')) {
                    dirs.push(p);
                }
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Set a file's mtime `secs` back: a change the memo's pass can tell from what it read (a file
/// written within the mtime slack of a pass is read again whatever its stamp).
fn aged(path: &Path, secs: u64) {
    let then = SystemTime::now() - Duration::from_secs(secs);
    std::fs::File::options().write(true).open(path).unwrap().set_modified(then).unwrap();
}

/// `lint --format json` through the cache and without it: both outputs, the cached run's
/// warnings refused.
fn both(s: &Setup) -> (String, String) {
    let run = |cached: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_folio"));
        cmd.args(["lint", s.store.to_str().unwrap(), "--format", "json"]).env("FOLIO_CACHE_DIR", &s.cache);
        if !cached {
            cmd.env("FOLIO_NO_CACHE", "1");
        }
        let out = cmd.output().unwrap();
        assert!(out.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&out.stderr));
        if cached {
            assert!(out.stderr.is_empty(), "no warning: {}", String::from_utf8_lossy(&out.stderr));
        }
        String::from_utf8(out.stdout).unwrap()
    };
    (run(true), run(false))
}

/// How many findings of `rule` a JSON report holds.
fn count(json: &str, rule: &str) -> usize {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    v["findings"].as_array().unwrap().iter().filter(|f| f["rule"] == rule).count()
}

fn rel(s: &Setup, p: &Path) -> String {
    p.strip_prefix(&s.store).unwrap().with_extension("").to_string_lossy().into_owned()
}

#[test]
fn the_memo_answers_as_an_uncached_lint_through_edits_creations_deletions_renames_and_config() {
    let s = setup();
    let all = notes(&s.store);
    // Plain notes of moderate size (the generator's multi-MB and non-UTF-8 files left alone).
    let plain: Vec<&PathBuf> = all
        .iter()
        .filter(|p| {
            std::fs::read(p).is_ok_and(|b| b.len() < 20_000 && std::str::from_utf8(&b).is_ok_and(|t| !t.contains('\r')))
        })
        .collect();
    let (a, b, c, d) = (plain[3], plain[40], plain[97], plain[150]);
    let mut last = String::new();
    let mut step = |what: &str, s: &Setup| {
        let (cached, full) = both(s);
        assert_eq!(cached, full, "after {what}: the memo answers as a lint without the cache");
        let (again, _) = both(s);
        assert_eq!(again, full, "after {what}, unchanged: the memo answers alike");
        assert_ne!(full, last, "{what} changed the findings");
        last = full;
        last.clone()
    };
    let first = step("the first pass", &s);
    assert!(count(&first, "broken-link") > 0 && count(&first, "orphan") > 0, "links and graph are planted");

    // An edit: a broken link and a link to an orphan appended to one note.
    let orphan: serde_json::Value = serde_json::from_str(&first).unwrap();
    let lonely = orphan["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "orphan").unwrap()["path"]
        .as_str()
        .map(str::to_string);
    let mut text = std::fs::read_to_string(a).unwrap();
    text.push_str("\nSee [[nowhere at all]]");
    if let Some(lonely) = &lonely {
        text.push_str(&format!(" and [[{}]]", lonely.trim_end_matches(".md")));
    }
    text.push_str(".\n");
    std::fs::write(a, &text).unwrap();
    aged(a, 1800);
    let edited = step("an edit", &s);
    assert!(count(&edited, "broken-link") > count(&first, "broken-link"));

    // A new note, a copy of another's body under another title (a near-duplicate), linking to `c`.
    let body = std::fs::read_to_string(b).unwrap();
    let created = s.store.join("concepts/Planted Copy.md");
    std::fs::write(&created, format!("{body}\nSee [[{}]].\n", rel(&s, c))).unwrap();
    aged(&created, 1700);
    let grown = step("a new note", &s);
    assert!(count(&grown, "duplicate-title") > count(&edited, "duplicate-title"), "the copy is found");

    // A deletion: `c`, which the new note (and maybe others) link to.
    std::fs::remove_file(c).unwrap();
    let shrunk = step("a deletion", &s);
    assert!(count(&shrunk, "broken-link") > count(&grown, "broken-link"));

    // A rename: `d` moved to another folder (its backlinks now broken, its links resolved anew).
    let moved = s.store.join("questions/Renamed Note.md");
    std::fs::rename(d, &moved).unwrap();
    step("a rename", &s);

    // A title made another's (a duplicate title), the file's stamp changed an hour apart.
    let title = std::fs::read_to_string(b).unwrap().lines().find(|l| l.starts_with("# ")).unwrap().to_string();
    let copy = std::fs::read_to_string(&moved).unwrap();
    let retitled = match copy.lines().find(|l| l.starts_with("# ")) {
        Some(old) => copy.replacen(old, &title, 1),
        None => format!("{title}\n{copy}"),
    };
    std::fs::write(&moved, retitled).unwrap();
    aged(&moved, 1600);
    step("a retitle", &s);

    // The lint config: orphans made errors, then the near-duplicate threshold moved.
    let config = folio_config(&s);
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "[lint.severity]\norphan = \"error\"\n").unwrap();
    step("a severity in the lint config", &s);
    std::fs::write(&config, "[lint.severity]\norphan = \"error\"\n\n[lint.near-duplicate]\nthreshold = 0.5\n").unwrap();
    step("a threshold in the lint config", &s);
    std::fs::remove_file(&config).unwrap();
    step("the lint config removed", &s);
}

/// Where folio keeps this store's config (`lint::config::config_path`).
fn folio_config(s: &Setup) -> PathBuf {
    folio::store::lint::config::config_path(&s.store, folio::store::dialect::vault::KIND)
}
