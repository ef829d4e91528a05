//! The inbox of a large store takes what it needs of each unchanged file (its hash, the fields
//! its reasons, author and evidence come from) from folio's cache (issue 44): a file whose size
//! or mtime changed is read again, and the listing is the one built from the files alone.
use crate::support;
use std::path::Path;
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
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("vault");
    std::fs::create_dir_all(root.join(".obsidian")).unwrap();
    // Written an hour ago, as a real store would be (files just written are never trusted).
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    for i in 0..NOTES {
        let p = root.join(format!("note-{i}.md"));
        std::fs::write(&p, note(i, "agent-a", &format!("What note {i} says."))).unwrap();
        set_mtime(&p, hour_ago);
    }
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
