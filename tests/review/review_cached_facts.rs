//! The inbox of a large store takes what it needs of each unchanged file (its hash, the fields
//! its reasons, author and evidence come from) from folio's cache (issue 44): a file whose size
//! or mtime changed is read again, and the listing is the one built from the files alone.
use crate::support;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::Value;

/// More notes than the cache's threshold (`cache::MIN_ENTITIES`), each with an author.
const NOTES: usize = 1_100;

fn note(i: usize, author: &str, body: &str) -> String {
    format!("---\ntitle: Note {i}\nauthor: {author}\n---\n# Note {i}\n\n{body}\n")
}

fn set_mtime(path: &Path, at: SystemTime) {
    std::fs::File::options().write(true).open(path).unwrap().set_modified(at).unwrap();
}

/// `folio review list --json` with the cache in `home` (or none), as parsed JSON and as text.
fn list(home: &Path, root: &Path, cached: bool) -> (Value, String) {
    let mut c = support::folio_in(home);
    c.args(["review"]).arg(root).args(["list", "--json"]).env("FOLIO_NOW", support::PINNED_NOW);
    if !cached {
        c.env("FOLIO_NO_CACHE", "1");
    }
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "no cache warning: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    (serde_json::from_str(&text).unwrap(), text)
}

fn author_of(listing: &Value, id: &str) -> String {
    let items = listing["items"].as_array().unwrap();
    let item = items.iter().find(|i| i["id"] == id).unwrap_or_else(|| panic!("{id} is queued"));
    item["author"].as_str().unwrap_or("-").to_string()
}

#[test]
fn a_file_changed_in_size_or_mtime_is_read_again_not_taken_from_the_cache() {
    let (dir, root, hour_ago) = notes_vault();
    let home = dir.path().join("home");
    let (first, first_text) = list(&home, &root, true);
    assert_eq!(first["count"], NOTES, "every note is never reviewed");
    let facts = |home: &Path| -> Vec<std::path::PathBuf> {
        let found = ignore::WalkBuilder::new(home).hidden(false).build().flatten();
        found.map(|e| e.into_path()).filter(|p| p.to_string_lossy().ends_with(".folio-hashes")).collect()
    };
    assert_eq!(facts(&home).len(), 1, "the first run kept the facts beside the snapshot");
    let (again, again_text) = list(&home, &root, true);
    assert_eq!(again_text, first_text, "from the cache, the same bytes");
    assert_eq!(again, list(&home, &root, false).0);

    // Same size, another author, another mtime: the new author is listed.
    let victim = root.join("note-7.md");
    let before = std::fs::read_to_string(&victim).unwrap();
    let changed = note(7, "agent-b", "What note 7 says.");
    assert_eq!(changed.len(), before.len());
    std::fs::write(&victim, &changed).unwrap();
    set_mtime(&victim, hour_ago + Duration::from_secs(600));
    let (listed, text) = list(&home, &root, true);
    assert_eq!(author_of(&listed, "note-7"), "agent-b", "a new mtime: read again");
    assert_eq!(text, list(&home, &root, false).1, "as listed from the files alone");

    // Another size, the mtime it had: read again too.
    std::fs::write(&victim, note(7, "agent-cc", "What note 7 says.")).unwrap();
    set_mtime(&victim, hour_ago + Duration::from_secs(600));
    let (listed, text) = list(&home, &root, true);
    assert_eq!(author_of(&listed, "note-7"), "agent-cc", "a new size: read again");
    assert_eq!(text, list(&home, &root, false).1);
    assert_eq!(author_of(&listed, "note-8"), "agent-a");
}

/// `folio review list` (`--json` or text, with `filter`) with the cache in `home` (or none): its
/// output and what it said on stderr.
fn listed(home: &Path, root: &Path, cached: bool, json: bool, filter: &str) -> (String, String) {
    let mut c = support::folio_in(home);
    c.args(["review"]).arg(root).arg("list").env("FOLIO_NOW", support::PINNED_NOW);
    if json {
        c.arg("--json");
    }
    if !filter.is_empty() {
        c.args(["--filter", filter]);
    }
    if !cached {
        c.env("FOLIO_NO_CACHE", "1");
    }
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// Note `i` of the varied vault: (status, kind, author, broken links), each varying on its own
/// cycle, so neighbours in the queue's order differ in every field an item carries.
fn varied(i: usize) -> (Option<&'static str>, Option<&'static str>, Option<&'static str>, usize) {
    let status = [None, Some("draft"), None, Some("proposed"), Some("mature")][i % 5];
    let kind = [None, Some("idea"), Some("person")][i % 3];
    let author = [Some("agent-a"), None, Some("agent-bee"), Some("someone with a longer name")][i % 4];
    (status, kind, author, i % 7 % 3)
}

fn varied_note(i: usize) -> String {
    let (status, kind, author, broken) = varied(i);
    let mut front = format!("title: Varied {i}\nupdated: 2026-{:02}-{:02}\n", 1 + i % 11, 1 + i % 27);
    for (key, value) in [("status", status), ("type", kind), ("author", author)] {
        if let Some(v) = value {
            front.push_str(&format!("{key}: {v}\n"));
        }
    }
    let links: String = (0..broken).map(|k| format!(" [[missing-{i}-{k}]]")).collect();
    format!("---\n{front}---\n# Varied {i}\n\nNote {i} links [[varied-{}]]{links}.\n", (i + 1) % NOTES)
}

/// Every queued item of a JSON listing carries its own note's fields, not a neighbour's (the
/// listing builds each item over the last one).
fn assert_items_are_their_notes(json: &str) {
    let v: Value = serde_json::from_str(json).unwrap();
    let items = v["items"].as_array().unwrap();
    assert!(!items.is_empty());
    for item in items {
        let i: usize = item["id"].as_str().unwrap().trim_start_matches("varied-").parse().unwrap();
        let (_, kind, author, broken) = varied(i);
        assert_eq!(item["kind"].as_str(), kind, "{item}");
        assert_eq!(item["author"].as_str(), author, "{item}");
        let findings = item["findings"].as_array().unwrap();
        let broken_found = findings.iter().filter(|f| f.as_str().unwrap().starts_with("broken-link")).count();
        assert_eq!(broken_found, broken, "{item}");
    }
}

#[test]
fn the_listing_is_the_same_from_the_cache_under_every_filter_and_a_damaged_side_file_is_rebuilt() {
    let (dir, root, hour_ago) = varied_vault();
    let home = dir.path().join("home");
    // Reasons and ages alone are answered by where an item goes (`Filter::reads_only_placement`),
    // the others by the whole item.
    let filters = [
        "",
        "reason:draft",
        "reason:lint-error",
        "reason:never-reviewed older:300d",
        "type:idea",
        "author:bee",
        "older:300d",
        "path:varied-1",
        "varied 1",
    ];
    // The cache written once, then every listing from it equals the listing from the files.
    listed(&home, &root, true, true, "");
    for filter in filters {
        for json in [true, false] {
            let (cached, warned) = listed(&home, &root, true, json, filter);
            assert!(warned.is_empty(), "{warned}");
            assert_eq!(cached, listed(&home, &root, false, json, filter).0, "filter {filter:?}, json {json}");
            if json && filter.is_empty() {
                assert_items_are_their_notes(&cached);
            }
        }
    }

    // A draft made mature: its reasons are computed again (no longer `draft`), not taken from
    // the cache.
    let victim = root.join("varied-1.md");
    let text = std::fs::read_to_string(&victim).unwrap().replace("status: draft", "status: mature");
    std::fs::write(&victim, text).unwrap();
    set_mtime(&victim, hour_ago + Duration::from_secs(600));
    let (json, _) = listed(&home, &root, true, true, "");
    let v: Value = serde_json::from_str(&json).unwrap();
    let item = v["items"].as_array().unwrap().iter().find(|i| i["id"] == "varied-1");
    assert!(item.is_none_or(|i| !i["reasons"].as_array().unwrap().iter().any(|r| r == "draft")), "{item:?}");
    assert_eq!(json, listed(&home, &root, false, true, "").0);

    // The side file damaged: a warning naming it, the listing as from the files, and the file
    // written again whole (the next run says nothing).
    let side: Vec<std::path::PathBuf> = ignore::WalkBuilder::new(&home)
        .hidden(false)
        .build()
        .flatten()
        .map(|e| e.into_path())
        .filter(|p| p.to_string_lossy().ends_with(".folio-hashes"))
        .collect();
    assert_eq!(side.len(), 1);
    let mut bytes = std::fs::read(&side[0]).unwrap();
    let at = bytes.len() - 40;
    bytes[at] ^= 0x5a;
    std::fs::write(&side[0], &bytes).unwrap();
    let (damaged, warned) = listed(&home, &root, true, true, "");
    assert!(warned.contains(&side[0].display().to_string()) && warned.contains("ignored"), "{warned}");
    assert_eq!(damaged, listed(&home, &root, false, true, "").0);
    let (again, warned) = listed(&home, &root, true, false, "");
    assert!(warned.is_empty(), "rebuilt: {warned}");
    assert_eq!(again, listed(&home, &root, false, false, "").0);
}

/// Remove the review listing kept under `home` (`inbox_memo`), if any.
fn forget_kept_listing(home: &Path) {
    let found = ignore::WalkBuilder::new(home).hidden(false).build().flatten();
    for p in found.map(|e| e.into_path()).filter(|p| p.to_string_lossy().ends_with(".folio-inbox")) {
        std::fs::remove_file(p).unwrap();
    }
}

/// The one file under `home` whose name ends with `ext`.
fn cache_file(home: &Path, ext: &str) -> std::path::PathBuf {
    let found: Vec<std::path::PathBuf> = ignore::WalkBuilder::new(home)
        .hidden(false)
        .build()
        .flatten()
        .map(|e| e.into_path())
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .collect();
    assert_eq!(found.len(), 1, "{ext}: {found:?}");
    found.into_iter().next().unwrap()
}

/// The inbox of an unchanged store opens its cache without the entities' links, taking what
/// reads links from lint's memo (issue 44). Whatever makes that unsafe opens the store whole,
/// and every listing equals the one from the files: a note whose links changed after such an
/// open, a damaged store cache (a warning naming it, then rebuilt), a memo left from before a
/// change (stale) and a damaged memo (named in a warning).
#[test]
fn the_inbox_opened_without_links_lists_as_the_files_and_falls_back_whole_when_it_must() {
    let (dir, root, hour_ago) = varied_vault();
    let home = dir.path().join("home");
    // The listing kept from the last run (`inbox_memo`) would answer before the paths this test
    // is about are taken: forgotten before each run.
    let same = |home: &Path, json: bool, filter: &str| {
        forget_kept_listing(home);
        let (cached, warned) = listed(home, &root, true, json, filter);
        assert_eq!(cached, listed(home, &root, false, json, filter).0, "filter {filter:?}, json {json}");
        (cached, warned)
    };
    // Written once (snapshot, lint memo, facts), then listed without links.
    listed(&home, &root, true, true, "");
    for filter in ["", "reason:lint-error", "older:100d", "type:idea"] {
        for json in [true, false] {
            let (_, warned) = same(&home, json, filter);
            assert!(warned.is_empty(), "{warned}");
        }
    }
    let memo_then = std::fs::read(cache_file(&home, ".folio-lint")).unwrap();

    // A note gains a broken link: its file changed, so the store is opened whole and lint
    // finds the link.
    let victim = root.join("varied-2.md");
    let text = std::fs::read_to_string(&victim).unwrap().replace(".\n", " [[gone-forever]].\n");
    std::fs::write(&victim, text).unwrap();
    set_mtime(&victim, hour_ago + Duration::from_secs(600));
    let (json, _) = same(&home, true, "");
    assert!(json.contains("gone-forever"), "the new broken link is listed");
    let (again, warned) = same(&home, true, "");
    assert_eq!((again == json, warned.as_str()), (true, ""));

    // Lint's memo from before the change: its digest is not the store's, the store is opened
    // whole (and the memo made anew).
    let memo = cache_file(&home, ".folio-lint");
    std::fs::write(&memo, &memo_then).unwrap();
    let (stale, warned) = same(&home, true, "");
    assert_eq!((stale == json, warned.as_str()), (true, ""));
    assert_ne!(std::fs::read(&memo).unwrap(), memo_then, "the memo was made again");

    // The memo damaged (its findings, the section after the header): named in a warning, the
    // listing as from the files.
    let mut bytes = std::fs::read(&memo).unwrap();
    let header_len = u64::from_le_bytes(bytes[8..16].try_into().unwrap()) as usize;
    let at = 8 + 12 + header_len + 12 + 1;
    bytes[at] ^= 0x5a;
    std::fs::write(&memo, &bytes).unwrap();
    let (damaged, warned) = same(&home, true, "");
    assert!(warned.contains(&memo.display().to_string()) && warned.contains("ignored"), "{warned}");
    assert_eq!(damaged, json);

    // The store cache damaged: named in a warning, the store loaded from its files, the cache
    // written again (the next run, without links again, says nothing).
    let snapshot = cache_file(&home, ".folio-cache");
    let mut bytes = std::fs::read(&snapshot).unwrap();
    let at = bytes.len() - 40;
    bytes[at] ^= 0x5a;
    std::fs::write(&snapshot, &bytes).unwrap();
    let (damaged, warned) = same(&home, false, "");
    assert!(warned.contains(&snapshot.display().to_string()) && warned.contains("ignored"), "{warned}");
    let (again, warned) = same(&home, false, "");
    assert_eq!((again == damaged, warned.as_str()), (true, ""));

    // The file stamps the inbox checks first, damaged: named, the listing as from the files,
    // the cache rebuilt.
    let mut bytes = std::fs::read(&snapshot).unwrap();
    let stamps = section(&bytes, 2);
    bytes[stamps.start + stamps.len() / 2] ^= 0x5a;
    std::fs::write(&snapshot, &bytes).unwrap();
    let (damaged, warned) = same(&home, true, "");
    assert!(warned.contains(&snapshot.display().to_string()) && warned.contains("file stamps"), "{warned}");
    assert_eq!(damaged, json);
    let (again, warned) = same(&home, true, "");
    assert_eq!((again == json, warned.as_str()), (true, ""));

    // A changed file found from the stamps, with an entity chunk damaged: the inbox decodes no
    // chunk, the whole open that takes its check finds the damage, names it and reads the files.
    let mut bytes = std::fs::read(&snapshot).unwrap();
    let chunk = section(&bytes, 3);
    bytes[chunk.start + chunk.len() / 2] ^= 0x5a;
    std::fs::write(&snapshot, &bytes).unwrap();
    let text = std::fs::read_to_string(&victim).unwrap().replace(" [[gone-forever]].\n", ".\n");
    std::fs::write(&victim, text).unwrap();
    set_mtime(&victim, hour_ago + Duration::from_secs(1200));
    let (changed, warned) = same(&home, true, "");
    assert!(warned.contains(&snapshot.display().to_string()) && warned.contains("entity chunk"), "{warned}");
    assert!(!changed.contains("gone-forever"), "the mended note is listed as it is now");
    let (again, warned) = same(&home, true, "");
    assert_eq!((again == changed, warned.as_str()), (true, ""));
}

/// The body of the `n`th section of a store cache (docs/cache.md: a magic line, then sections
/// each led by its length and CRC-32; the third holds the file stamps, the entity chunks follow).
fn section(bytes: &[u8], n: usize) -> std::ops::Range<usize> {
    let mut at = 8;
    for i in 0.. {
        let len = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
        let body = at + 12;
        if i == n {
            return body..body + len;
        }
        at = body + len;
    }
    unreachable!()
}

/// A vault of `NOTES` notes by `agent-a`, written an hour ago; the vault's path and when the
/// notes were written.
fn notes_vault() -> (tempfile::TempDir, PathBuf, SystemTime) {
    support::vault_written_an_hour_ago(NOTES, "note", |i| note(i, "agent-a", &format!("What note {i} says.")))
}

/// A vault of `NOTES` varied notes, written an hour ago (older than any pass's mtime slack).
fn varied_vault() -> (tempfile::TempDir, PathBuf, SystemTime) {
    support::vault_written_an_hour_ago(NOTES, "varied", varied_note)
}

/// One note changed in a large store is read again on each listing rather than the whole facts
/// file written for it; once more than one in a thousand changed, the file is written again. The
/// listing is the files' either way.
#[test]
fn a_few_changed_notes_are_read_again_and_more_write_the_facts_again() {
    let (dir, root, hour_ago) = notes_vault();
    let home = dir.path().join("home");
    list(&home, &root, true);
    let facts = cache_file(&home, ".folio-hashes");
    let saved = std::fs::read(&facts).unwrap();
    let rewrite = |i: usize, author: &str| {
        let p = root.join(format!("note-{i}.md"));
        std::fs::write(&p, note(i, author, "Changed by an agent.")).unwrap();
        set_mtime(&p, hour_ago + Duration::from_secs(600));
    };
    rewrite(3, "agent-b");
    for _ in 0..2 {
        let (listed, text) = list(&home, &root, true);
        assert_eq!(author_of(&listed, "note-3"), "agent-b", "read again from its file");
        assert_eq!(text, list(&home, &root, false).1, "the listing is the files'");
        // Compared, not printed: the file is a few hundred kilobytes.
        assert!(std::fs::read(&facts).unwrap() == saved, "one note of {NOTES}: the facts file left as it was");
    }
    rewrite(8, "agent-c");
    let (listed, text) = list(&home, &root, true);
    assert_eq!((author_of(&listed, "note-3"), author_of(&listed, "note-8")), ("agent-b".into(), "agent-c".into()));
    assert_eq!(text, list(&home, &root, false).1);
    assert!(std::fs::read(&facts).unwrap() != saved, "two notes of {NOTES}: written again");
}
