//! `inbox_memo`'s tests: a kept listing answers an open of the store it was made of, for the
//! same request, and nothing else.
use super::*;
use crate::store::Store;
use crate::store::keep::cache::side;
use std::time::{Duration, SystemTime};

const KIND: DialectKind = crate::store::dialect::vault::KIND;

/// A vault of `MIN_ENTITIES` + 1 notes written an hour ago, and a cache of its own.
fn vault_and_cache() -> (tempfile::TempDir, tempfile::TempDir, Cache) {
    let dir = side::fixture::aged_vault(|i| (format!("Note {i}"), format!("Body of note {i}, see [[note-1]].")));
    let cdir = tempfile::tempdir().unwrap();
    let cache = Cache::new(cdir.path());
    // The first open writes the snapshot and lint's digest of the store with it.
    drop(open(&cache, dir.path()));
    (dir, cdir, cache)
}

fn open(cache: &Cache, root: &Path) -> Store {
    super::super::open(Some(cache), root, KIND, "t".into(), crate::store::Reads::Entities).0
}

/// The inbox's open of `root` for `request`: its cache (asked what answered) and the store.
fn ask(cache: &Cache, root: &Path, request: &str) -> (Cache, Store) {
    let asking = cache.for_inbox().asking(request.to_string());
    let store = open(&asking, root);
    (asking, store)
}

/// Open for `request` and keep `listing` as its answer, as `review list` does after listing.
fn keep_listing(cache: &Cache, root: &Path, request: &str, listing: &[u8]) {
    let (asking, store) = ask(cache, root, request);
    assert!(asking.inbox_answer().is_none() && !store.entities.is_empty());
    assert!(asking.inbox_keepable(), "an unchanged store's listing may be kept");
    keep(&asking, root, KIND, listing).unwrap();
}

/// What an open for `request` answered with (None: it opened the store).
fn answered(cache: &Cache, root: &Path, request: &str) -> Option<Vec<u8>> {
    let (asking, store) = ask(cache, root, request);
    let answer = asking.inbox_answer().map(<[u8]>::to_vec);
    assert_eq!(answer.is_some(), store.entities.is_empty(), "a stand-in store exactly when answered");
    answer
}

fn touch(path: &Path, ago: Duration) {
    fs::File::options().write(true).open(path).unwrap().set_modified(SystemTime::now() - ago).unwrap();
}

#[test]
fn a_kept_listing_answers_the_same_request_of_the_unchanged_store_only() {
    let (dir, _cdir, cache) = vault_and_cache();
    let root = dir.path();
    assert_eq!(answered(&cache, root, "list"), None, "nothing kept yet");
    keep_listing(&cache, root, "list", b"the listing\n");
    assert_eq!(answered(&cache, root, "list").as_deref(), Some(&b"the listing\n"[..]));
    assert_eq!(answered(&cache, root, "list").as_deref(), Some(&b"the listing\n"[..]), "again");
    assert_eq!(answered(&cache, root, "list --json"), None, "another request");
    // A plain open is never answered, and an inbox open that is not asking neither.
    let plain = open(&cache, root);
    assert!(!plain.entities.is_empty());
    let lean = cache.for_inbox();
    assert!(!open(&lean, root).entities.is_empty() && lean.inbox_answer().is_none());

    // The ledger gains a verdict: the listing is made again, then kept for it.
    let ledger = crate::store::write::state::State::for_store(root, KIND).verdicts_path();
    fs::create_dir_all(ledger.parent().unwrap()).unwrap();
    fs::write(&ledger, "{\"entity\":\"note-5\",\"verdict\":\"approve\"}\n").unwrap();
    assert_eq!(answered(&cache, root, "list"), None, "a verdict since");
    keep_listing(&cache, root, "list", b"after the verdict\n");
    assert_eq!(answered(&cache, root, "list").as_deref(), Some(&b"after the verdict\n"[..]));
    // Its bytes changed at the same size: not answered either.
    fs::write(&ledger, "{\"entity\":\"note-6\",\"verdict\":\"approve\"}\n").unwrap();
    assert_eq!(answered(&cache, root, "list"), None, "another verdict");

    // The lint config written, then removed.
    keep_listing(&cache, root, "list", b"x\n");
    let config = crate::store::lint::config::config_path(root, KIND);
    fs::create_dir_all(config.parent().unwrap()).unwrap();
    fs::write(&config, "[lint]\ndisable = [\"orphan\"]\n").unwrap();
    assert_eq!(answered(&cache, root, "list"), None, "a config since");
    keep_listing(&cache, root, "list", b"y\n");
    fs::remove_file(&config).unwrap();
    assert_eq!(answered(&cache, root, "list"), None, "the config gone");

    // A note changed: the store is opened and read again, and its listing kept anew.
    keep_listing(&cache, root, "list", b"z\n");
    let note = root.join("note-9.md");
    fs::write(&note, "---\ntitle: Note 9\n---\nChanged.\n").unwrap();
    touch(&note, Duration::from_secs(1800));
    assert_eq!(answered(&cache, root, "list"), None, "a changed note");
    // The open that read it wrote a new snapshot: the listing kept before it does not answer.
    let (asking, _) = ask(&cache, root, "list");
    assert!(asking.inbox_answer().is_none());
    keep_listing(&cache, root, "list", b"after the change\n");
    assert_eq!(answered(&cache, root, "list").as_deref(), Some(&b"after the change\n"[..]));
}

#[test]
fn a_damaged_listing_is_not_an_answer() {
    let (dir, _cdir, cache) = vault_and_cache();
    let root = dir.path();
    keep_listing(&cache, root, "list", b"the listing, long enough to damage\n");
    let path = cache.side_file(root, KIND, INBOX_EXT);
    let kept = fs::read(&path).unwrap();
    for at in [0, 9, kept.len() / 2, kept.len() - 3] {
        let mut bytes = kept.clone();
        bytes[at] ^= 0x20;
        fs::write(&path, &bytes).unwrap();
        assert_eq!(answered(&cache, root, "list"), None, "byte {at} damaged");
    }
    fs::write(&path, &kept[..kept.len() - 1]).unwrap();
    assert_eq!(answered(&cache, root, "list"), None, "cut short");
    let mut longer = kept.clone();
    longer.push(b'!');
    fs::write(&path, &longer).unwrap();
    assert_eq!(answered(&cache, root, "list"), None, "bytes after the listing");
    fs::write(&path, &kept).unwrap();
    assert!(answered(&cache, root, "list").is_some());
}

/// A store in a git repository lists its items' authors from git's history, which no file of
/// the store records: its listing is never kept.
#[test]
fn a_store_in_git_keeps_no_listing() {
    let (dir, _cdir, cache) = vault_and_cache();
    let root = dir.path();
    keep_listing(&cache, root, "list", b"kept before git\n");
    assert!(answered(&cache, root, "list").is_some());
    let init = std::process::Command::new("git").args(["init", "-q"]).current_dir(root).status();
    assert!(init.is_ok_and(|s| s.success()), "git init");
    // `.git` is not a note: the store is as it was.
    let (asking, store) = ask(&cache, root, "list");
    assert!(asking.inbox_answer().is_none() && !store.entities.is_empty(), "not answered in git");
    assert!(!asking.inbox_keepable(), "nor kept");
}

/// A change the listing's own write could not see: a verdict recorded between the open and
/// the keep leaves nothing kept.
#[test]
fn a_listing_is_not_kept_when_what_it_read_changed_while_it_was_made() {
    let (dir, _cdir, cache) = vault_and_cache();
    let root = dir.path();
    let (asking, _store) = ask(&cache, root, "list");
    assert!(asking.inbox_keepable());
    let ledger = crate::store::write::state::State::for_store(root, KIND).verdicts_path();
    fs::create_dir_all(ledger.parent().unwrap()).unwrap();
    fs::write(&ledger, "{\"entity\":\"note-2\",\"verdict\":\"veto\"}\n").unwrap();
    keep(&asking, root, KIND, b"made before the verdict\n").unwrap();
    assert!(!cache.side_file(root, KIND, INBOX_EXT).exists());
    assert_eq!(answered(&cache, root, "list"), None);
}
