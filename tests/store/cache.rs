//! The persistent cache through the CLI: a cached open answers exactly as a full load, follows
//! every kind of change on disk, and a bad cache or cache dir never changes an answer.

use crate::support;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use support::write;

/// A generated OKF store large enough to be cached, in a temp dir with its own cache dir.
struct Setup {
    _dir: tempfile::TempDir,
    store: PathBuf,
    cache: PathBuf,
}

fn setup() -> Setup {
    setup_dialect("okf")
}

/// `setup` for a store of `dialect`, as `folio-gen` writes it.
fn setup_dialect(dialect: &str) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join(dialect);
    let kind = folio::store::dialect::by_name(dialect).unwrap();
    folio_gen::generate(kind, 1200, 7, &store).unwrap();
    // Files written this recently are re-read on every open (mtime granularity); age them.
    age(&store);
    let cache = dir.path().join("cache");
    Setup { _dir: dir, store, cache }
}

/// Set every file's mtime an hour back, as for a store written earlier.
fn age(root: &Path) {
    let then = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for entry in walk(root) {
        std::fs::File::options().write(true).open(&entry).unwrap().set_modified(then).unwrap();
    }
}

fn walk(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(root).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}

fn folio(cache: &Path, args: &[&str]) -> Output {
    crate::support::folio_in(cache).args(args).env("FOLIO_CACHE_DIR", cache).output().unwrap()
}

/// `stats --json` without the timing, and the whole graph: what must not depend on the cache.
fn answers(cache: &Path, store: &Path, extra: &[&str]) -> (String, String, String) {
    let s = store.to_str().unwrap();
    let stats = folio(cache, &[&["stats", s, "--json"], extra].concat());
    assert_eq!(stats.status.code(), Some(0), "{}", String::from_utf8_lossy(&stats.stderr));
    let mut v: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    v.as_object_mut().unwrap().remove("load_ms");
    let graph = folio(cache, &[&["graph", s, "--format", "json"], extra].concat());
    assert_eq!(graph.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&stats.stderr).into_owned();
    (v.to_string(), String::from_utf8_lossy(&graph.stdout).into_owned(), stderr)
}

fn cache_files(cache: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(cache.join("stores")).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default()
}

#[test]
fn a_cached_open_answers_as_a_full_load_through_every_change() {
    let s = setup();
    let truth = |s: &Setup| answers(&s.cache, &s.store, &["--no-cache"]);
    let first = answers(&s.cache, &s.store, &[]);
    assert_eq!(cache_files(&s.cache).len(), 1, "the first open writes the cache");
    let (t_stats, t_graph, _) = truth(&s);
    assert_eq!((&first.0, &first.1), (&t_stats, &t_graph));
    let cached = answers(&s.cache, &s.store, &[]);
    assert_eq!((&cached.0, &cached.1), (&t_stats, &t_graph), "answers from the cache");
    assert!(cached.2.is_empty(), "no warning: {}", cached.2);

    // An agent edits, adds and deletes files; one file keeps its size with a new mtime.
    let files: Vec<PathBuf> = walk(&s.store).into_iter().filter(|p| p.extension().is_some_and(|e| e == "md")).collect();
    let concepts: Vec<&PathBuf> = files.iter().filter(|p| !p.ends_with("index.md") && !p.ends_with("log.md")).collect();
    let text = std::fs::read_to_string(concepts[0]).unwrap();
    std::fs::write(
        concepts[0],
        text.replace("---\n", "---\ntitle: Renamed by the agent\n").replacen("](", "](../missing.md) [x](", 1),
    )
    .unwrap();
    let same = std::fs::read_to_string(concepts[1]).unwrap().replace('a', "b");
    std::fs::write(concepts[1], same).unwrap();
    std::fs::remove_file(concepts[2]).unwrap();
    write(
        concepts[3].parent().unwrap(),
        "brand-new.md",
        "---\ntype: note\n---\n# Brand new\n\nSee [a](brand-new.md).\n",
    );
    let (t_stats, t_graph, _) = truth(&s);
    assert_ne!(t_stats, cached.0, "the edits changed the answers");
    let after = answers(&s.cache, &s.store, &[]);
    assert_eq!((&after.0, &after.1), (&t_stats, &t_graph), "the cache follows edits, additions and deletions");
}

/// evolve, opendray exports and awareness homes are cached too (their entities depend on their
/// own file's bytes alone): a cached open answers as a full load, and follows an agent's edit,
/// a new file and a deleted one (awareness: entries added to and dropped from long-term memory).
#[test]
fn every_cached_dialect_answers_as_a_full_load_through_changes() {
    for dialect in ["evolve", "opendray", "awareness"] {
        let s = setup_dialect(dialect);
        let truth = |s: &Setup| answers(&s.cache, &s.store, &["--no-cache"]);
        let first = answers(&s.cache, &s.store, &[]);
        assert_eq!(cache_files(&s.cache).len(), 1, "{dialect}: the first open writes the cache");
        let cached = answers(&s.cache, &s.store, &[]);
        let (t_stats, t_graph, _) = truth(&s);
        assert_eq!((&first.0, &first.1), (&t_stats, &t_graph), "{dialect}");
        assert_eq!((&cached.0, &cached.1), (&t_stats, &t_graph), "{dialect}: answers from the cache");
        assert!(cached.2.is_empty(), "{dialect}: no warning: {}", cached.2);

        let mut files: Vec<PathBuf> =
            walk(&s.store).into_iter().filter(|p| p.extension().is_some_and(|e| e == "md")).collect();
        files.sort();
        let biggest = files.iter().max_by_key(|p| std::fs::metadata(p).unwrap().len()).unwrap().clone();
        let text = std::fs::read_to_string(&biggest).unwrap();
        // An agent drops the first entry-looking line and appends two.
        let dropped = text.lines().position(|l| l.starts_with("- ")).map_or(text.clone(), |n| {
            text.lines().enumerate().filter(|(i, _)| *i != n).map(|(_, l)| format!("{l}\n")).collect()
        });
        std::fs::write(&biggest, format!("{dropped}\n- [fact] An agent learned this. [[nowhere]]\n- another line\n"))
            .unwrap();
        let other = files.iter().find(|p| **p != biggest).unwrap();
        write(other.parent().unwrap(), "brand-new.md", "---\ntitle: Brand new\ntype: note\n---\n# Brand new\n\nNew.\n");
        if files.len() > 3 {
            std::fs::remove_file(files.iter().rev().find(|p| **p != biggest).unwrap()).unwrap();
        }
        let (t_stats, t_graph, _) = truth(&s);
        assert_ne!(t_stats, cached.0, "{dialect}: the edits changed the answers");
        let after = answers(&s.cache, &s.store, &[]);
        assert_eq!((&after.0, &after.1), (&t_stats, &t_graph), "{dialect}: the cache follows the edits");
    }
}

/// `lint --format json`: every finding with its message, what a cached AIP-10 page must keep.
fn lint_json(cache: &Path, store: &Path, extra: &[&str]) -> String {
    let out = folio(cache, &[&["lint", store.to_str().unwrap(), "--format", "json"], extra].concat());
    assert!(out.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// AIP-10 is cached too: its pages also depend on the workspace chain (here a parent manifest
/// outside the store sets the lints and entity types) and on tombstones beside them. A cached
/// open answers `stats`, `graph` and `lint` as a full load through an edit, a new page, a
/// deleted one, a change to the chain's parent, a new tombstone (on a page and on the catalog)
/// and a removed one.
#[test]
fn aip10_answers_as_a_full_load_through_policy_and_tombstone_changes() {
    let s = setup_dialect("aip10");
    let base = s.store.parent().unwrap().join("base");
    write(
        &base,
        "KNOWLEDGE.md",
        "---\nschema: knowledge.workspace/v1\nname: base\nentityTypes:\n  - {name: Concept}\n  - {name: Entity}\n\
         \x20 - {name: Summary, parent: Concept}\nlints:\n\
         \x20 - {id: age, kind: max-age, appliesTo: \"*\", severity: warn, params: {days: 20}}\n\
         \x20 - {id: conf, kind: min-confidence, appliesTo: Concept, severity: info, params: {min: 0.75}}\n\
         \x20 - {id: src, kind: require-source, appliesTo: Entity, severity: error}\n---\n# Base\n",
    );
    write(
        &s.store,
        "KNOWLEDGE.md",
        "---\nschema: knowledge.workspace/v1\nname: w\nextends: ../base/KNOWLEDGE.md\n---\n",
    );
    // Every page last updated 30 days and 12 hours ago: its `max-age` findings count the same
    // days in every run of the test (a random time of day would make one change between the
    // cached answer and the full load it is compared with).
    let updated = (time::OffsetDateTime::now_utc() - time::Duration::hours(30 * 24 + 12))
        .replace_nanosecond(0)
        .unwrap()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    for page in walk(&s.store).into_iter().filter(|p| p.extension().is_some_and(|e| e == "md")) {
        let text = std::fs::read_to_string(&page).unwrap();
        let dated: String = text
            .lines()
            .map(|l| if l.starts_with("updated_at:") { format!("updated_at: {updated}\n") } else { format!("{l}\n") })
            .collect();
        std::fs::write(&page, dated).unwrap();
    }
    age(&s.store);
    let all = |s: &Setup, extra: &[&str]| {
        let (stats, graph, err) = answers(&s.cache, &s.store, extra);
        (stats, graph, lint_json(&s.cache, &s.store, extra), err)
    };
    let truth = |s: &Setup| {
        let t = all(s, &["--no-cache"]);
        (t.0, t.1, t.2)
    };
    let same = |s: &Setup, why: &str| {
        let cached = all(s, &[]);
        assert!(cached.3.is_empty(), "{why}: no warning: {}", cached.3);
        let t = truth(s);
        assert!(cached.0 == t.0 && cached.1 == t.1, "{why}: stats and graph from the cache");
        assert!(cached.2 == t.2, "{why}: lint from the cache");
        t.0
    };
    let first = same(&s, "first open");
    assert_eq!(cache_files(&s.cache).iter().filter(|p| p.extension().is_some_and(|e| e == "folio-cache")).count(), 1);
    assert!(first.contains("\"problems\""), "{first}");
    same(&s, "second open");

    let mut pages: Vec<PathBuf> = walk(&s.store)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "md") && !p.ends_with("KNOWLEDGE.md"))
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('_'))
        .filter(|p| !p.to_string_lossy().contains("/sources/"))
        .collect();
    pages.sort();
    let text = std::fs::read_to_string(&pages[0]).unwrap();
    std::fs::write(&pages[0], text.replace("confidence: ", "confidence: 0.1\nold_confidence: ")).unwrap();
    std::fs::remove_file(&pages[1]).unwrap();
    write(
        pages[2].parent().unwrap(),
        "brand-new.md",
        format!(
            "---\nschema: knowledge.entry/v1\nslug: brand-new\nkind: entity\ntitle: Brand new\n\
         updated_at: {updated}\n---\n# Brand new\n\nNew.\n"
        ),
    );
    let edited = same(&s, "an edit, an addition and a deletion");
    assert_ne!(edited, first, "the edits changed the answers");

    let policy = std::fs::read_to_string(base.join("KNOWLEDGE.md")).unwrap();
    std::fs::write(base.join("KNOWLEDGE.md"), policy.replace("min: 0.75", "min: 0.95").replace("days: 20", "days: 9"))
        .unwrap();
    let tightened = same(&s, "a stricter parent manifest");
    assert_ne!(tightened, edited, "the policy changed the answers");

    let hidden = pages[3].with_extension("md.whiteout");
    std::fs::write(&hidden, "").unwrap();
    std::fs::write(s.store.join("_index.md.whiteout"), "").unwrap();
    let tombstoned = same(&s, "tombstones on a page and on the catalog");
    assert_ne!(tombstoned, tightened, "the tombstone hid a page");
    std::fs::remove_file(&hidden).unwrap();
    std::fs::remove_file(s.store.join("_index.md.whiteout")).unwrap();
    assert_eq!(same(&s, "the tombstones removed"), tightened);
}

#[test]
fn a_corrupt_cache_or_an_unwritable_cache_dir_warns_and_answers_right() {
    let s = setup();
    let (t_stats, t_graph, _) = answers(&s.cache, &s.store, &["--no-cache"]);
    answers(&s.cache, &s.store, &[]);
    let file = cache_files(&s.cache).pop().unwrap();
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() / 3]).unwrap();
    let (stats, graph, err) = answers(&s.cache, &s.store, &[]);
    assert_eq!((stats, graph), (t_stats.clone(), t_graph.clone()));
    assert!(err.contains("truncated") && err.contains("ignored"), "{err}");
    assert_eq!(std::fs::read(&file).unwrap().len(), bytes.len(), "the cache was rebuilt");

    let blocked = s.cache.join("not-a-dir");
    std::fs::write(&blocked, "x").unwrap();
    let (stats, graph, err) = answers(&blocked.join("sub"), &s.store, &[]);
    assert_eq!((stats, graph), (t_stats, t_graph));
    assert!(err.contains("cannot write the cache"), "{err}");
}

#[test]
fn a_moved_store_is_loaded_afresh_and_cache_info_and_clear_work() {
    let s = setup();
    answers(&s.cache, &s.store, &[]);
    let moved = s.store.with_file_name("moved");
    std::fs::rename(&s.store, &moved).unwrap();
    let (stats, _, err) = answers(&s.cache, &moved, &[]);
    assert!(err.is_empty(), "{err}");
    assert!(stats.contains("moved"), "the moved store answers for its new root");
    assert_eq!(cache_files(&s.cache).len(), 2, "one cache per root");

    let info = folio(&s.cache, &["cache", "info", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    let stores = v["stores"].as_array().unwrap();
    assert_eq!(stores.len(), 2);
    assert!(stores.iter().all(|e| e["entities"].as_u64().unwrap() > 1000 && e["this_build"] == true));
    let out = folio(&s.cache, &["cache", "clear", moved.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("removed the cache of"));
    assert_eq!(cache_files(&s.cache).len(), 1);
    let out = folio(&s.cache, &["cache", "clear", "--all"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("removed 1 cache file"));
    assert!(cache_files(&s.cache).is_empty());

    // A folder without any format's marker is a store when named (as every command opens it):
    // its cache is cleared by its path, side files included.
    let plain = s.store.with_file_name("plain");
    std::fs::create_dir_all(&plain).unwrap();
    // Written an hour ago: files just written are not trusted by their stamps, and the inbox
    // keeps its listing only of a store it opened unchanged.
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for i in 0..1_010 {
        let p = plain.join(format!("n-{i}.md"));
        std::fs::write(&p, format!("---\ntitle: N {i}\n---\nBody {i}.\n")).unwrap();
        std::fs::File::options().write(true).open(&p).unwrap().set_modified(hour_ago).unwrap();
    }
    for _ in 0..2 {
        let listed = folio(&s.cache, &["review", plain.to_str().unwrap(), "list"]);
        assert!(listed.status.success(), "{}", String::from_utf8_lossy(&listed.stderr));
    }
    // Each side file is listed with its size.
    let info = folio(&s.cache, &["cache", "info", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    let store = v["stores"].as_array().unwrap().iter().find(|e| e["root"].as_str().unwrap().ends_with("plain"));
    let store = store.expect("the plain folder's cache is listed");
    for (key, ext) in
        [("facts_bytes", "folio-hashes"), ("lint_memo_bytes", "folio-lint"), ("listing_bytes", "folio-inbox")]
    {
        let file = cache_files(&s.cache).into_iter().find(|p| p.extension().is_some_and(|e| e == ext));
        let size = std::fs::metadata(file.unwrap_or_else(|| panic!("{ext} written"))).unwrap().len();
        assert_eq!(store[key].as_u64(), Some(size), "{key}: {store}");
    }
    let text = String::from_utf8_lossy(&folio(&s.cache, &["cache", "info"]).stdout).into_owned();
    assert!(text.contains("+ review listing") && text.contains("+ lint memo"), "{text}");
    assert!(cache_files(&s.cache).len() >= 2, "a snapshot and its side files");
    let out = folio(&s.cache, &["cache", "clear", plain.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("removed the cache of"), "{out:?}");
    assert!(cache_files(&s.cache).is_empty(), "side files too");
    let out = folio(&s.cache, &["cache", "clear", plain.join("n-1.md").to_str().unwrap()]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("not a folder"), "{out:?}");
    assert!(cache_files(&s.cache).is_empty());
    let off =
        Command::new(env!("CARGO_BIN_EXE_folio")).args(["cache", "info"]).env("FOLIO_NO_CACHE", "1").output().unwrap();
    assert!(String::from_utf8_lossy(&off.stdout).contains("the cache is off"));
}

/// `recall --text --json`: the results, and how many entities were read and tokenised.
fn text_recall(cache: &Path, store: &Path, query: &str) -> (serde_json::Value, u64, u64) {
    let out = folio(cache, &["recall", "--text", "--json", store.to_str().unwrap(), query]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "no warning: {}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (tokenised, reused) = (v["index"]["tokenised"].as_u64().unwrap(), v["index"]["reused"].as_u64().unwrap());
    (v["results"].clone(), tokenised, reused)
}

#[test]
fn the_text_index_is_kept_in_the_cache_and_only_changed_files_are_read_again() {
    let s = setup();
    let (first, tokenised, reused) = text_recall(&s.cache, &s.store, "margin");
    assert!(tokenised > 1000 && reused == 0, "{tokenised} {reused}");
    assert!(!first.as_array().unwrap().is_empty());
    assert!(cache_files(&s.cache).iter().any(|p| p.extension().is_some_and(|e| e == "folio-text")));
    let info = folio(&s.cache, &["cache", "info", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert!(v["stores"][0]["text_index_bytes"].as_u64().unwrap() > 0, "cache info lists the text index: {v}");
    let text = String::from_utf8_lossy(&folio(&s.cache, &["cache", "info"]).stdout).into_owned();
    assert!(text.contains("+ text index"), "{text}");
    let (second, again, reused) = text_recall(&s.cache, &s.store, "margin");
    assert_eq!((again, reused), (0, tokenised), "a second run reads no body");
    assert_eq!(second, first, "and answers the same");

    // An agent adds a word to one concept: that one is read again, and its new word found.
    let files: Vec<PathBuf> = walk(&s.store).into_iter().filter(|p| p.extension().is_some_and(|e| e == "md")).collect();
    let concept = files.iter().find(|p| !p.ends_with("index.md") && !p.ends_with("log.md")).unwrap();
    let text = std::fs::read_to_string(concept).unwrap();
    std::fs::write(concept, format!("{text}\nThe quokka ledger reconciles nightly.\n")).unwrap();
    let (found, tokenised, _) = text_recall(&s.cache, &s.store, "quokka");
    assert_eq!(tokenised, 1, "only the edited concept is read");
    let in_body: Vec<&serde_json::Value> =
        found.as_array().unwrap().iter().filter(|h| h["bm25"].as_f64().unwrap() > 0.0).collect();
    assert_eq!(in_body.len(), 1, "{in_body:?}");
    assert!(concept.ends_with(in_body[0]["path"].as_str().unwrap()), "{in_body:?}");
    assert_eq!(found[0], *in_body[0], "the body match ranks first");
    // Without the cache the same answers and scores (the cached index is no different from a
    // fresh one, and one of the query's words alone answers as the whole index).
    for query in ["margin", "gross Margin quokka", "\"daily revenue\" margin", "mrgn"] {
        let out = folio(&s.cache, &["recall", "--text", "--json", "--no-cache", s.store.to_str().unwrap(), query]);
        let fresh: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(fresh["results"], text_recall(&s.cache, &s.store, query).0, "{query}");
    }
}

/// The byte range of section `n` of a side file (after its magic line, each section is a
/// u64 length, a CRC-32 and its bytes; docs/cache.md).
fn section(bytes: &[u8], n: usize) -> std::ops::Range<usize> {
    let mut at = 8;
    for _ in 0..n {
        at += 12 + u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
    }
    let len = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
    at + 12..at + 12 + len
}

#[test]
fn a_damaged_text_index_is_found_by_the_query_that_reads_it_and_built_anew() {
    let s = setup();
    let (first, ..) = text_recall(&s.cache, &s.store, "margin");
    let file = cache_files(&s.cache).into_iter().find(|p| p.extension().is_some_and(|e| e == "folio-text")).unwrap();
    // Every posting list of 16 bytes or more damaged (the last section: the postings).
    let mut bytes = std::fs::read(&file).unwrap();
    for i in section(&bytes, 5).step_by(16) {
        bytes[i] ^= 0x5a;
    }
    std::fs::write(&file, &bytes).unwrap();
    let out = folio(&s.cache, &["recall", "--text", "--json", s.store.to_str().unwrap(), "margin"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("posting list: checksum mismatch; ignored"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["results"], first, "answered from an index built anew");
    assert!(v["index"]["tokenised"].as_u64().unwrap() > 1000);
    let (again, tokenised, _) = text_recall(&s.cache, &s.store, "margin");
    assert_eq!((again, tokenised), (first, 0), "the index was written back");
}

/// `lint --format json` through the cache, and as a full load reading every body.
fn lints(cache: &Path, store: &Path) -> (String, String) {
    let s = store.to_str().unwrap();
    let cached = folio(cache, &["lint", s, "--format", "json"]);
    assert!(cached.stderr.is_empty(), "no warning: {}", String::from_utf8_lossy(&cached.stderr));
    let full = Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["lint", s, "--format", "json"])
        .env("FOLIO_NO_CACHE", "1")
        .output()
        .unwrap();
    (String::from_utf8_lossy(&cached.stdout).into_owned(), String::from_utf8_lossy(&full.stdout).into_owned())
}

#[test]
fn lint_keeps_the_near_duplicate_profiles_in_the_cache_and_follows_an_edit() {
    let s = setup();
    let (first, full) = lints(&s.cache, &s.store);
    assert_eq!(first, full);
    let written = cache_files(&s.cache).into_iter().find(|p| p.extension().is_some_and(|e| e == "folio-profiles"));
    let written = written.expect("lint writes the profiles beside the snapshot");
    let info = folio(&s.cache, &["cache", "info", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(v["stores"][0]["profiles_bytes"].as_u64(), Some(std::fs::metadata(&written).unwrap().len()), "{v}");
    let text = String::from_utf8_lossy(&folio(&s.cache, &["cache", "info"]).stdout).into_owned();
    assert!(text.contains("+ lint profiles"), "{text}");
    let stamp = std::fs::metadata(&written).unwrap().modified().unwrap();
    let (second, full) = lints(&s.cache, &s.store);
    assert_eq!(second, full);
    assert_eq!(std::fs::metadata(&written).unwrap().modified().unwrap(), stamp, "nothing changed: not rewritten");

    // An agent copies one concept's body into another: the pair is found through the cache.
    let files: Vec<PathBuf> = walk(&s.store).into_iter().filter(|p| p.extension().is_some_and(|e| e == "md")).collect();
    let concepts: Vec<&PathBuf> = files.iter().filter(|p| !p.ends_with("index.md") && !p.ends_with("log.md")).collect();
    let ((head0, body0), (head1, _)) = (front_and_body(concepts[0]), front_and_body(concepts[1]));
    let body = format!("{body0}\nThe quokka ledger reconciles every night after the close, twice over.\n");
    std::fs::write(concepts[0], format!("{head0}{body}")).unwrap();
    std::fs::write(concepts[1], format!("{head1}{body}")).unwrap();
    let (third, full) = lints(&s.cache, &s.store);
    assert_eq!(third, full, "the edited files' profiles are read again");
    assert_ne!(third, second);
    assert!(third.contains("\"near-duplicate\""), "the planted copy is found");
}

/// A concept's frontmatter (with its fences) and its body.
fn front_and_body(p: &Path) -> (String, String) {
    let text = std::fs::read_to_string(p).unwrap();
    let end = text[3..].find("\n---\n").map(|i| i + 8).unwrap();
    (text[..end].to_string(), text[end..].to_string())
}

/// Set `file`'s mtime an hour back, so that the next open trusts a snapshot that read it.
fn age_one(file: &Path) {
    let then = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options().write(true).open(file).unwrap().set_modified(then).unwrap();
}

/// After a few files changed in place, the snapshot written again takes the chunks of
/// entities the open left as they were from the earlier one (`codec::Earlier`): an EloPhanto
/// store (wikilinks name notes by title) of three chunks, a body edit in one of them, then a
/// retitle that a link in another chunk follows (every entity moved), each time the next open
/// answering from that snapshot alone as a full load.
#[test]
fn a_snapshot_written_after_edits_in_place_answers_as_a_full_load() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("knowledge");
    folio_gen::generate(folio::store::dialect::by_name("elophanto").unwrap(), 4500, 11, &store).unwrap();
    age(&store);
    let cache = dir.path().join("cache");
    let truth = || answers(&cache, &store, &["--no-cache"]);
    assert_eq!(answers(&cache, &store, &[]).0, truth().0, "the first open writes the snapshot");
    let notes: Vec<PathBuf> = {
        let mut all: Vec<PathBuf> =
            walk(&store).into_iter().filter(|p| p.extension().is_some_and(|e| e == "md")).collect();
        all.sort();
        all
    };
    // A body edit in the middle chunk: a wikilink to a title no note has yet.
    let (middle, last) = (&notes[notes.len() / 2], &notes[notes.len() - 1]);
    let text = std::fs::read_to_string(middle).unwrap();
    std::fs::write(middle, format!("{text}\nSee [[Zed Retitled]].\n")).unwrap();
    age_one(middle);
    let (t_stats, t_graph, _) = truth();
    let rewritten = answers(&cache, &store, &[]);
    assert_eq!((&rewritten.0, &rewritten.1), (&t_stats, &t_graph), "the open that re-reads the edit");
    let again = answers(&cache, &store, &[]);
    assert_eq!((&again.0, &again.1), (&t_stats, &t_graph), "from the snapshot written after the edit");
    assert!(again.2.is_empty(), "no warning: {}", again.2);
    // The last note takes that title: the middle note's link, in a file that did not change
    // since, resolves now.
    let text = std::fs::read_to_string(last).unwrap();
    assert!(text.contains("\ntitle: "), "{text}");
    let title = text.lines().find(|l| l.starts_with("title: ")).unwrap();
    std::fs::write(last, text.replacen(title, "title: Zed Retitled", 1)).unwrap();
    age_one(last);
    let (t_stats2, t_graph2, _) = truth();
    let unresolved =
        |stats: &str| serde_json::from_str::<serde_json::Value>(stats).unwrap()["unresolved_links"].clone();
    assert_eq!(
        unresolved(&t_stats2).as_u64().unwrap() + 1,
        unresolved(&t_stats).as_u64().unwrap(),
        "the retitle resolves the link"
    );
    assert_eq!(answers(&cache, &store, &[]).0, t_stats2);
    let again = answers(&cache, &store, &[]);
    assert_eq!((&again.0, &again.1), (&t_stats2, &t_graph2), "from the snapshot written after the retitle");
}

/// `review list` through the cache and with `--no-cache`.
fn inboxes(cache: &Path, store: &Path) -> (String, String) {
    let s = store.to_str().unwrap();
    let cached = folio(cache, &["review", "list", s]);
    assert_eq!(cached.status.code(), Some(0), "{}", String::from_utf8_lossy(&cached.stderr));
    assert!(cached.stderr.is_empty(), "no warning: {}", String::from_utf8_lossy(&cached.stderr));
    let full = folio(cache, &["review", "list", s, "--no-cache"]);
    (String::from_utf8_lossy(&cached.stdout).into_owned(), String::from_utf8_lossy(&full.stdout).into_owned())
}

/// Nearly every file rewritten since the snapshot (a checkout of another branch, a formatter):
/// the store is read from its files rather than patched file by file
/// (`Validation::names_most_files`, or the sample `validate::sample_names_most_files` takes
/// first where the open has decoded the snapshot), and the inbox, lint — its near-duplicate profiles taken
/// from the load, not the stale ones kept — and the open answer as a full load, then again
/// from the snapshot written meanwhile. Twice: the inbox first (its open checks the files
/// before decoding the snapshot), then lint first (its open after decoding it).
#[test]
fn a_store_whose_files_nearly_all_changed_answers_as_a_full_load() {
    let s = setup();
    let (first, full) = lints(&s.cache, &s.store);
    assert_eq!(first, full);
    let (inbox, full_inbox) = inboxes(&s.cache, &s.store);
    assert_eq!(inbox, full_inbox);
    assert!(cache_files(&s.cache).iter().any(|p| p.extension().is_some_and(|e| e == "folio-profiles")));

    let mut concepts: Vec<PathBuf> = walk(&s.store)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "md") && !p.ends_with("index.md") && !p.ends_with("log.md"))
        .collect();
    concepts.sort();
    // Every concept is written again (a new stamp); in some a line moves (a formatter), and a
    // pair comes to share its body (a near-duplicate the stale profiles do not know).
    let rewrite = |round: usize| {
        for (i, p) in concepts.iter().enumerate() {
            let text = std::fs::read_to_string(p).unwrap();
            let text = if i % 7 == round { text.replacen("\n\n", "\n\n\n", 1) } else { text };
            std::fs::write(p, text).unwrap();
        }
        let ((head0, body0), (head1, _)) =
            (front_and_body(&concepts[2 * round]), front_and_body(&concepts[2 * round + 1]));
        let body = format!("{body0}\nThe quokka ledger of round {round} reconciles every night after the close.\n");
        std::fs::write(&concepts[2 * round], format!("{head0}{body}")).unwrap();
        std::fs::write(&concepts[2 * round + 1], format!("{head1}{body}")).unwrap();
        age(&s.store);
    };
    let mut last = first;
    for round in [1, 2] {
        rewrite(round);
        let (t_stats, t_graph, _) = answers(&s.cache, &s.store, &["--no-cache"]);
        let inbox_first = round == 1;
        if inbox_first {
            let (inbox, full_inbox) = inboxes(&s.cache, &s.store);
            assert_eq!(inbox, full_inbox, "round {round}: the inbox after the rewrite");
        }
        let (lint, full) = lints(&s.cache, &s.store);
        assert_eq!(lint, full, "round {round}: lint after the rewrite");
        assert_ne!(lint, last);
        assert!(lint.matches("\"near-duplicate\"").count() > last.matches("\"near-duplicate\"").count());
        if !inbox_first {
            let (inbox, full_inbox) = inboxes(&s.cache, &s.store);
            assert_eq!(inbox, full_inbox, "round {round}: the inbox after lint");
        }
        let opened = answers(&s.cache, &s.store, &[]);
        assert_eq!((&opened.0, &opened.1), (&t_stats, &t_graph), "round {round}: the open after the rewrite");
        assert!(opened.2.is_empty(), "no warning: {}", opened.2);
        let (again, _) = lints(&s.cache, &s.store);
        assert_eq!(again, full, "round {round}: lint from what the rewrite's opens kept");
        last = lint;
    }
}
