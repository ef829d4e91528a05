//! `hashes`' tests: the inbox's facts kept, read again, damaged, and listed as the store is.
use super::*;
use crate::store::model::digest;
use std::fs;
use std::time::Duration;

/// A vault of `MIN_ENTITIES` + 1 notes written an hour ago.
fn vault() -> tempfile::TempDir {
    side::fixture::aged_vault(|i| (format!("Note {i}"), format!("Body of note {i}.")))
}

fn load_vault(dir: &tempfile::TempDir) -> Store {
    Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into())
}

/// A cache in a folder of its own (kept while the folder is).
fn temp_cache() -> (tempfile::TempDir, Cache) {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(dir.path());
    (dir, cache)
}

/// Every entity's facts, through `Facts` and `queue::complete_facts`: (facts, read, reused).
fn all(cache: Option<&Cache>, store: &Store) -> (Vec<Option<TextFacts>>, usize, usize) {
    let mut f = Facts::open(cache, store);
    f.computed += queue::complete_facts(store, &mut f.slots, 0..store.entities.len());
    f.save(cache, store);
    (f.slots.clone(), f.computed, f.reused)
}

/// A listing as `review list --json` would see it: every item's debug form, in order.
fn listed(cache: Option<&Cache>, linted: Linted) -> Vec<String> {
    let filter = crate::store::review::filter::Filter::parse("").unwrap();
    let (items, spent) =
        list_linted(cache, linted, &filter, |l, _| l.collect().iter().map(|i| format!("{i:?}")).collect::<Vec<_>>());
    drop(spent);
    items
}

/// An unchanged cached store whose lint memo holds opens for the inbox without its links
/// (`Cache::for_inbox`) and lists the same items as the store opened whole; a changed file,
/// a memo that does not hold or a cache without the inbox's flag open it whole.
#[test]
fn the_inbox_opens_an_unchanged_store_without_links_and_lists_the_same() {
    let dir = side::fixture::aged_vault(|i| {
        let link = if i % 7 == 0 { " See [[Nowhere]]." } else { " See [[note-1]]." };
        (format!("Note {i}"), format!("Body of note {i}.{link}"))
    });
    let cdir = tempfile::tempdir().unwrap();
    let cache = Cache::new(cdir.path());
    let kind = crate::store::dialect::vault::KIND;
    let open = |c: &Cache| super::super::open(Some(c), dir.path(), kind, "t".into(), crate::store::Reads::Entities).0;
    // The first open writes the snapshot, the first listing lints and keeps the memo.
    let want = listed(Some(&cache), lint_whole(Some(&cache), open(&cache)));
    assert!(want.iter().any(|i| i.contains("broken-link")), "lint's findings are listed");
    let lean = cache.for_inbox();
    let store = open(&lean);
    assert!(lean.lean_digest().is_some(), "opened without links");
    // The facts' file is weighed against the snapshot's digest of the keys, not one made again.
    assert_eq!(lean.lean_keys_digest(), Some(side::keys_digest(&store)));
    assert!(store.entities.iter().all(|e| e.links.is_empty()) && store.backlinks.iter().all(|b| b.is_empty()));
    assert!(lean.save(&store).is_err(), "a store without its links is never written");
    let linted = lint_lean(&lean, store).expect("the memo holds");
    assert_eq!(listed(Some(&cache), linted), want);
    // The memo damaged: it does not hold, the inbox must open the store whole.
    let memo = cache.side_file(dir.path(), kind, super::super::LINT_EXT);
    let kept = fs::read(&memo).unwrap();
    fs::write(&memo, b"not a memo").unwrap();
    let lean = cache.for_inbox();
    let store = open(&lean);
    assert!(lean.lean_digest().is_some());
    assert!(lint_lean(&lean, store).is_none());
    fs::write(&memo, &kept).unwrap();
    // A note changed: opened whole (its links read), by `open`'s own way.
    let p = dir.path().join("note-3.md");
    fs::write(&p, "---\ntitle: Note 3\n---\nNow [[Elsewhere]].\n").unwrap();
    fs::File::options()
        .write(true)
        .open(&p)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(1800))
        .unwrap();
    let lean = cache.for_inbox();
    let store = open(&lean);
    assert!(lean.lean_digest().is_none());
    assert!(store.entities.iter().any(|e| !e.links.is_empty()));
    assert!(lint_lean(&lean, store).is_none(), "a whole store is not linted as a lean one");
    // A plain cache never opens without links.
    let plain = Cache::new(cdir.path());
    let store = open(&plain);
    assert!(plain.lean_digest().is_none() && store.entities.iter().any(|e| !e.links.is_empty()));
}

/// While lint runs, the queue streams without lint's reasons (provisional, in batches, the
/// first read on the calling thread); then the whole queue with them, as `inbox` builds it.
#[test]
fn the_queue_streams_while_lint_runs_then_arrives_whole_with_lint_reasons() {
    // Every seventh note links nowhere: a broken link, lint's own reason to queue it.
    let dir = side::fixture::aged_vault(|i| {
        let link = if i % 7 == 0 { " See [[Nowhere]]." } else { "" };
        (format!("Note {i}"), format!("Body of note {i}.{link}"))
    });
    let (_cdir, cache) = temp_cache();
    let store = load_vault(&dir);
    let (want, _) = inbox(None, &store);
    let ids = |items: &[QueueItem]| items.iter().map(|i| format!("{} {:?}", i.id, i.reasons)).collect::<Vec<_>>();
    let lint = || {
        let config = crate::store::lint::LintConfig::load(&store.root, store.kind()).unwrap_or_default();
        crate::store::lint::lint(&store, &config)
    };
    let findings = |items: &[QueueItem]| items.iter().map(|i| i.findings.len()).sum::<usize>();
    let mut provisional_sizes = Vec::new();
    let (mut provisional, mut whole) = (Vec::new(), None);
    inbox_while_linting(Some(&cache), &store, 100, &lint, &mut |b, early| {
        if early {
            provisional_sizes.push(b.done);
            queue::merge(&mut provisional, b.items);
        } else {
            assert_eq!((b.done, b.total), (store.entities.len(), store.entities.len()));
            assert!(whole.replace(b.items).is_none(), "one whole queue");
        }
        true
    });
    let whole = whole.unwrap();
    assert_eq!(ids(&whole), ids(&want));
    assert_eq!(format!("{whole:?}"), format!("{want:?}"));
    assert_eq!(provisional_sizes.first(), Some(&100));
    assert_eq!(provisional_sizes.last(), Some(&store.entities.len()));
    let mut without_lint = Vec::new();
    inbox_in_batches(None, &store, &Default::default(), usize::MAX, &mut |b| {
        without_lint = b.items;
        true
    });
    assert_eq!(ids(&provisional), ids(&without_lint));
    // Lint's findings (the broken links) are the whole queue's, not the provisional list's.
    assert!(findings(&want) > 0);
    assert_eq!(findings(&provisional), 0);
    // The facts were saved: a second run reads no file.
    let (_, read, reused) = all(Some(&cache), &store);
    assert_eq!((read, reused), (0, store.entities.len()));
    // The first batch's facts, read on this thread, are those read in parallel.
    let (mut here, mut there) = (Vec::new(), Vec::new());
    assert_eq!(queue::complete_facts_here(&store, &mut here, 0..50), 50);
    assert_eq!(queue::complete_facts(&store, &mut there, 0..50), 50);
    assert_eq!(here, there);
}

#[test]
fn a_second_run_reads_nothing_and_an_edited_file_is_read_again() {
    let dir = vault();
    let (_cdir, cache) = temp_cache();
    let load = || load_vault(&dir);
    let store = load();
    let n = store.entities.len();
    let want: Vec<Option<TextFacts>> = (0..n as EntityIdx).map(|i| TextFacts::read(&store, i)).collect();
    assert!(want.iter().all(Option::is_some));
    assert_eq!(all(None, &store), (want.clone(), n, 0), "without a cache every file is read");
    assert_eq!(all(Some(&cache), &store), (want.clone(), n, 0));
    assert_eq!(all(Some(&cache), &store), (want, 0, n), "the second run takes every entity's facts from the file");

    // Same size, another author and mtime: read again, and the new author is what counts.
    let edited = dir.path().join("note-3.md");
    fs::write(&edited, "---\ntitle: Note 3\nauthor: bob\n---\nBod\n").unwrap();
    let earlier = SystemTime::now() - Duration::from_secs(1800);
    fs::File::options().write(true).open(&edited).unwrap().set_modified(earlier).unwrap();
    let store = load();
    let (facts, computed, reused) = all(Some(&cache), &store);
    assert_eq!((computed, reused), (1, n - 1));
    let i = store.entities.iter().position(|e| e.path == "note-3.md").unwrap();
    let f = facts[i].as_ref().unwrap();
    assert_eq!(f.author.as_deref(), Some("bob"));
    assert_eq!(f.hash_text(), digest::of(store.read_entity_text(i as EntityIdx).unwrap().as_bytes()));

    // A corrupt file is ignored with a warning naming it, and every entity is read again.
    let file = cache.side_file(&store.root, store.kind(), HASHES_EXT);
    fs::write(&file, b"FOLIOH2\nbroken").unwrap();
    let f = Facts::open(Some(&cache), &store);
    assert_eq!(f.reused, 0);
    assert!(f.warnings.len() == 1 && f.warnings[0].contains(&file.display().to_string()), "{:?}", f.warnings);
}

#[test]
fn a_damaged_facts_section_is_ignored_and_rebuilt() {
    let dir = vault();
    let (_cdir, cache) = temp_cache();
    let store = load_vault(&dir);
    let n = store.entities.len();
    let (want, _, _) = all(Some(&cache), &store);
    let file = cache.side_file(&store.root, store.kind(), HASHES_EXT);
    let bytes = fs::read(&file).unwrap();
    // A byte of the facts (decoded as they are read) flipped: its checksum fails, nothing
    // decoded from it is used, and the next run writes the file again.
    let mut bad = bytes.clone();
    let at = side::fixture::sections(&bad)[FACTS].end - 10;
    bad[at] ^= 0x5a;
    fs::write(&file, &bad).unwrap();
    let f = Facts::open(Some(&cache), &store);
    assert_eq!(f.reused, 0);
    assert!(f.warnings.len() == 1 && f.warnings[0].contains("checksum"), "{:?}", f.warnings);
    assert_eq!(all(Some(&cache), &store), (want.clone(), n, 0), "every entity read again");
    assert_eq!(Facts::open(Some(&cache), &store).reused, n, "written again whole");
    // Cut short in the facts: truncated, ignored the same way.
    let good = fs::read(&file).unwrap();
    fs::write(&file, &good[..side::fixture::sections(&good)[FACTS].end - 3]).unwrap();
    let f = Facts::open(Some(&cache), &store);
    assert!(f.reused == 0 && f.warnings[0].contains("truncated"), "{:?}", f.warnings);
}

/// The facts' section and the keys' (after the header's and `side::SameKeys`'s).
const FACTS: usize = 2;
const KEYS: usize = 3;

/// A store whose every key is as saved takes the facts without reading the keys (the keys'
/// section damaged goes unnoticed); one file changed, the keys are read (and their damage
/// found); and so they are when a file was written within the slack of the saved reads.
#[test]
fn the_keys_are_read_only_when_the_store_differs_from_the_saved_digest() {
    let dir = vault();
    let (_cdir, cache) = temp_cache();
    let load = || load_vault(&dir);
    let store = load();
    let n = store.entities.len();
    let (want, _, _) = all(Some(&cache), &store);
    let file = cache.side_file(&store.root, store.kind(), HASHES_EXT);
    let damage_keys = || {
        let mut bytes = fs::read(&file).unwrap();
        let keys = side::fixture::sections(&bytes)[KEYS].clone();
        assert_eq!(keys.end, bytes.len(), "the keys come last");
        bytes[keys.start + 3] ^= 0x5a;
        fs::write(&file, &bytes).unwrap();
    };
    damage_keys();
    let f = Facts::open(Some(&cache), &store);
    assert!(f.warnings.is_empty(), "{:?}", f.warnings);
    assert_eq!((f.reused, f.slots), (n, want));
    // Another mtime for one note: the digest differs, the keys are read, the damage found.
    let touched = dir.path().join("note-3.md");
    let earlier = SystemTime::now() - Duration::from_secs(1800);
    fs::File::options().write(true).open(&touched).unwrap().set_modified(earlier).unwrap();
    let f = Facts::open(Some(&cache), &load());
    assert!(f.reused == 0 && f.warnings.len() == 1 && f.warnings[0].contains("checksum"), "{:?}", f.warnings);
    // A note written just now: the facts saved with it are not all trusted, so even the same
    // store weighs its keys one by one (the one note read again each time).
    fs::write(dir.path().join("note-4.md"), "---\ntitle: Note 4\n---\nNew.\n").unwrap();
    let store = load();
    assert_eq!(all(Some(&cache), &store).1, n, "the damaged file is written again whole");
    damage_keys();
    let f = Facts::open(Some(&cache), &store);
    assert!(f.reused == 0 && f.warnings[0].contains("checksum"), "{:?}", f.warnings);
}

/// The saved keys weighed as they are decoded (`side::KeptInOrder`) when the store holds the
/// same entities in the same order; otherwise held and matched by path and id (`side::kept`).
#[test]
fn facts_are_kept_by_entity_when_the_store_holds_others_in_another_order() {
    let dir = vault();
    let (_cdir, cache) = temp_cache();
    let load = || load_vault(&dir);
    let store = load();
    let n = store.entities.len();
    assert_eq!(all(Some(&cache), &store).1, n);
    // A note sorted before every other: each saved entry's entity is one further on.
    let first = dir.path().join("a-first.md");
    fs::write(&first, "---\ntitle: First\n---\nFirst.\n").unwrap();
    fs::File::options()
        .write(true)
        .open(&first)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
    let store = load();
    assert_eq!(store.entities[0].path, "a-first.md");
    let want: Vec<Option<TextFacts>> =
        (0..store.entities.len() as EntityIdx).map(|i| TextFacts::read(&store, i)).collect();
    let (facts, computed, reused) = all(Some(&cache), &store);
    assert_eq!((computed, reused), (1, n), "only the new note is read");
    assert_eq!(facts, want);
    // In order again (the file was rewritten): taken as decoded.
    assert_eq!(all(Some(&cache), &store), (want, 0, n + 1));
}

#[test]
fn facts_made_for_another_parse_of_the_entity_are_read_again() {
    let dir = vault();
    let store = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
    let mut facts: Vec<Option<TextFacts>> = (0..3).map(|i| TextFacts::read(&store, i)).collect();
    let right = facts[1].clone();
    if let Some(f) = facts[1].as_mut() {
        f.entity ^= 1;
        f.author = Some("stale".into());
    }
    assert_eq!(queue::complete_facts(&store, &mut facts, 0..3), 1);
    assert_eq!(facts[1], right);
    assert_eq!(facts.len(), store.entities.len(), "grown to the store's size, the rest left to read");
    assert!(facts[3..].iter().all(Option::is_none));
}

/// What the load takes while it holds each file (`Reads::EntitiesForInbox`) is what
/// reading the file afterwards gives, entity by entity, on every fixture store and on a vault
/// of awkward files; a file it could not take them from is left to be read, and the inbox is
/// the same either way.
#[test]
fn facts_taken_while_loading_are_those_read_afterwards() {
    use crate::store::Reads;
    use crate::store::model::entity::rule;
    use crate::store::read::detect;
    let awkward = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| fs::write(awkward.path().join(name), bytes).unwrap();
    for i in 0..40 {
        write(&format!("n{i}.md"), format!("---\ntitle: N{i}\nauthor: ann\n---\nSee [[n{}]].\n", i + 1).as_bytes());
    }
    write("crlf.md", b"---\r\ntitle: CRLF\r\nauthor: bob\r\nstatus: draft\r\n---\r\nBody\r\n");
    write("latin1.md", b"---\ntitle: Caf\xe9\n---\nna\xefve body\n");
    write("binary.md", b"---\ntitle: B\n---\n\x00\x01\x02");
    write("broken-yaml.md", b"---\ntitle: [unclosed\n---\nBody\n");
    let mut huge = b"---\ntitle: Huge\n---\n".to_vec();
    huge.resize(MAX_READ_FOR_TEST + 4096, b'x');
    write("huge.md", &huge);
    let mut stores: Vec<(std::path::PathBuf, crate::store::dialect::DialectKind)> = crate::store::fixture_stores::all()
        .into_iter()
        .map(|(root, _)| {
            let found = detect::detect(&root);
            (found.root, found.kind)
        })
        .collect();
    stores.push((awkward.path().to_path_buf(), crate::store::dialect::vault::KIND));
    let everything = |_: &std::path::Path, _| true;
    for (root, kind) in stores {
        let store = Store::load_with(&root, kind, "test".into(), None, Reads::EntitiesForInbox(&everything));
        let loaded = store.take_loaded_facts().expect("the load took the facts");
        assert!(store.take_loaded_facts().is_none(), "taken once");
        assert_eq!(loaded.len(), store.entities.len());
        let mut taken = 0;
        for (i, facts) in loaded.iter().enumerate() {
            let read = TextFacts::read(&store, i as EntityIdx);
            let e = store.entity(i as EntityIdx);
            match facts {
                Some(facts) => {
                    taken += 1;
                    assert_eq!(Some(facts), read.as_ref(), "{}: {}", root.display(), e.path);
                }
                // Left to be read: only a file the load could not parse.
                None => assert!(
                    e.escapes_root() || e.problems.iter().any(|p| [rule::BINARY, rule::UNREADABLE].contains(&p.rule)),
                    "{}: {} has no facts",
                    root.display(),
                    e.path
                ),
            }
        }
        assert!(taken > 0, "{}", root.display());
        let plain = Store::load(&root, kind, "test".into());
        let with_facts = Store::load_with(&root, kind, "test".into(), None, Reads::EntitiesForInbox(&everything));
        assert_eq!(format!("{:?}", inbox(None, &with_facts).0), format!("{:?}", inbox(None, &plain).0));
    }
}

const MAX_READ_FOR_TEST: usize = crate::store::read::load::MAX_READ as usize;
