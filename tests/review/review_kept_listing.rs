//! `review list` of a store nothing of which changed answers with the listing it wrote last
//! (`keep::cache::inbox_memo`, issues 43 and 44). Every listing, answered or made, equals the
//! one made from the files alone, after each thing a listing reads changes: a verdict and its
//! undo, the lint config, the date, a note, and the request itself (text or JSON, a filter, a grouping).
use crate::support;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// More notes than the cache's threshold (`cache::MIN_ENTITIES`).
const NOTES: usize = 1_050;
const LATER: &str = "2027-02-11T09:00:00Z";

fn vault() -> (tempfile::TempDir, PathBuf) {
    let (dir, root, _) = support::vault_written_an_hour_ago(NOTES, "note", |i| {
        let status = ["draft", "mature", "proposed"][i % 3];
        let broken = if i % 5 == 0 { format!(" [[missing-{i}]]") } else { String::new() };
        format!(
            "---\ntitle: Note {i}\nstatus: {status}\nupdated: 2026-{:02}-{:02}\nauthor: agent-{}\n---\n# Note {i}\n\nNote {i} links [[note-{}]]{broken}.\n",
            1 + i % 11,
            1 + i % 27,
            i % 4,
            (i + 1) % NOTES
        )
    });
    (dir, root)
}

/// `folio review ROOT list ARGS` at `now`, with the cache under `home` (or none): its output.
fn list(home: &Path, root: &Path, now: &str, args: &[&str], cached: bool) -> String {
    let mut c = support::folio_in(home);
    c.args(["review"]).arg(root).arg("list").args(args).env("FOLIO_NOW", now);
    if !cached {
        c.env("FOLIO_NO_CACHE", "1");
    }
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "nothing to say: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Three cached listings (the first may open the store whole, the second keeps its listing,
/// the third is answered with it), each equal to the listing from the files alone; returned.
fn listed_alike(home: &Path, root: &Path, now: &str, args: &[&str]) -> String {
    let want = list(home, root, now, args, false);
    for run in 1..=3 {
        assert_eq!(list(home, root, now, args, true), want, "run {run} of {args:?} at {now}");
    }
    want
}

fn kept_listing(home: &Path) -> Option<PathBuf> {
    let found = ignore::WalkBuilder::new(home).hidden(false).build().flatten();
    found.map(|e| e.into_path()).find(|p| p.to_string_lossy().ends_with(".folio-inbox"))
}

fn folio_ok(home: &Path, args: &[&str]) {
    let out = support::folio_in(home).args(args).env("FOLIO_NOW", support::PINNED_NOW).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn an_answered_listing_is_the_listing_of_the_files_after_every_change_it_reads() {
    let (dir, root) = vault();
    let home = dir.path().join("home");
    let now = support::PINNED_NOW;
    let first = listed_alike(&home, &root, now, &[]);
    let kept = kept_listing(&home).expect("the listing is kept beside the snapshot");
    assert_eq!(std::fs::read(&kept).unwrap().windows(first.len()).filter(|w| *w == first.as_bytes()).count(), 1);
    assert!(first.contains("note-7  ["), "note 7 awaits review");

    // Another request: its own listing, kept in its place.
    let json = listed_alike(&home, &root, now, &["--json"]);
    assert!(json.starts_with('{'));
    listed_alike(&home, &root, now, &["--filter", "status:draft"]);
    let grouped = listed_alike(&home, &root, now, &["--group", "author"]);
    assert!(grouped.contains("== agent-1"), "{grouped}");
    assert_eq!(listed_alike(&home, &root, now, &[]), first);

    // A verdict, then its undo.
    let r = root.to_str().unwrap();
    folio_ok(&home, &["review", r, "approve", "note-7", "--as", "human:tester"]);
    let approved = listed_alike(&home, &root, now, &[]);
    assert!(!approved.contains("note-7  ["), "approved: out of the inbox");
    folio_ok(&home, &["undo", r]);
    assert_eq!(listed_alike(&home, &root, now, &[]), first, "undone: as before");

    // Another day: the ages move on.
    let later = listed_alike(&home, &root, LATER, &[]);
    assert_ne!(later, first);
    assert_eq!(listed_alike(&home, &root, now, &[]), first);

    // The lint config turns a rule off: the findings change.
    let config = root.join(".folio").join("config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "[lint]\ndisable = [\"broken-link\"]\n").unwrap();
    assert_ne!(listed_alike(&home, &root, now, &[]), first, "the config is read");
    std::fs::remove_file(&config).unwrap();
    assert_eq!(listed_alike(&home, &root, now, &[]), first);

    // A note changed by an agent.
    let note = root.join("note-8.md");
    let text = std::fs::read_to_string(&note).unwrap().replace("status: proposed", "status: deprecated");
    std::fs::write(&note, text).unwrap();
    let changed = listed_alike(&home, &root, now, &[]);
    assert!(first.contains("note-8  [") && !changed.contains("note-8  ["), "deprecated: out of the inbox");
}

/// evolve's own audit log records verdicts outside the entities' folder (another tool's, or an
/// agent's): a review row appended to it after a listing was kept moves the next listing.
#[test]
fn an_evolve_review_row_appended_to_its_audit_log_is_listed() {
    let dir = tempfile::tempdir().unwrap();
    let evolve = dir.path().join("project").join(".evolve");
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for i in 0..NOTES {
        let p = evolve.join("entities").join("guideline").join(format!("rule-{i}.md"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        let text =
            format!("---\ntype: guideline\ntrigger: When step {i} runs\n---\n\n## Guideline\n\nDo step {i} first.\n");
        std::fs::write(&p, text).unwrap();
        std::fs::File::options().write(true).open(&p).unwrap().set_modified(hour_ago).unwrap();
    }
    let log = evolve.join("audit.log");
    std::fs::write(
        &log,
        "{\"event\": \"recall\", \"session_id\": \"s0\", \"entities\": [], \"ts\": \"2026-11-01T00:00:00Z\"}\n",
    )
    .unwrap();
    let home = dir.path().join("home");
    let root = evolve.join("entities");
    let now = support::PINNED_NOW;
    let first = listed_alike(&home, &root, now, &[]);
    assert!(kept_listing(&home).is_some());
    let json: serde_json::Value = serde_json::from_str(&list(&home, &root, now, &["--json"], false)).unwrap();
    let item = &json["items"][0];
    let (id, hash) = (item["id"].as_str().unwrap(), item["hash"].as_str().unwrap());
    assert!(first.contains(&format!("{id}  [")));
    listed_alike(&home, &root, now, &[]);
    let row = format!(
        "{{\"event\": \"review\", \"verdict\": \"approved\", \"entity\": \"{id}\", \"hash\": \"{hash}\", \"by\": \"another-tool\", \"ts\": \"2026-11-26T10:00:00Z\"}}\n"
    );
    std::fs::OpenOptions::new().append(true).open(&log).unwrap().write_all(row.as_bytes()).unwrap();
    let after = listed_alike(&home, &root, now, &[]);
    assert!(!after.contains(&format!("{id}  [")), "approved in evolve's own log: {id} left the inbox");
}
