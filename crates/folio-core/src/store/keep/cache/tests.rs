use super::test_corpora::{corpus, corpus_or_skip};
use super::*;
use std::path::PathBuf;
use std::sync::Arc;

fn scratch_copy(src: &Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let dst = dir.path().join("store");
    let ok = std::process::Command::new("cp").arg("-r").arg(src).arg(&dst).status().unwrap().success();
    assert!(ok);
    std::process::Command::new("chmod").args(["-R", "u+w"]).arg(&dst).status().unwrap();
    (dir, dst)
}

/// Everything a loaded store holds, in a comparable form.
fn fingerprint(s: &Store) -> String {
    format!("{:?}\n{:?}\n{:?}\n{:?}", s.entities, s.other_files, s.backlinks, s.walk_warnings)
}

#[test]
fn a_cached_store_equals_a_fresh_load_for_every_cacheable_corpus() {
    let fixture =
        |rel: &str| Some(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/fixtures").join(rel));
    let carried = |rel: &str| Some(corpus(rel));
    // The corpora the repository may not carry are read from ../shared; without it each is
    // named on stderr and left out (a failure under FOLIO_REQUIRE_SHARED or CI).
    for (root, kind) in [
        (carried("okf-v0.2/acme_retail"), crate::store::dialect::okf::KIND),
        (carried("okf-v0.1"), crate::store::dialect::okf::KIND),
        (corpus_or_skip("elophanto/knowledge"), crate::store::dialect::elophanto::KIND),
        (carried("okf-v0.2/ga4"), crate::store::dialect::vault::KIND),
        (corpus_or_skip("evolve/public-repo-vinodmut"), crate::store::dialect::evolve::KIND),
        (fixture("evolve-project/.evolve/entities"), crate::store::dialect::evolve::KIND),
        (fixture("opendray-homelab"), crate::store::dialect::opendray::KIND),
        (fixture("awareness-home"), crate::store::dialect::awareness::KIND),
        (fixture("aip10-wiki"), crate::store::dialect::aip10::KIND),
        (corpus_or_skip("aip-10/ts-fixtures"), crate::store::dialect::aip10::KIND),
    ] {
        let Some(root) = root else { continue };
        assert!(cacheable(kind), "{kind}");
        let rel = root.display().to_string();
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        let fresh = Store::load(&root, kind, "t".into());
        cache.save(&fresh).unwrap();
        let cached = cache.load(&root, kind, "t".into()).unwrap_or_else(|e| panic!("{rel}: {e:?}"));
        assert!(cached.from_cache);
        assert_eq!(fingerprint(&cached), fingerprint(&fresh), "{rel}");
        for e in &fresh.entities {
            assert_eq!(
                cached.find(&e.id).map(|i| &cached.entity(i).path),
                fresh.find(&e.id).map(|i| &fresh.entity(i).path)
            );
        }
        assert!(
            validate::validate(&cached).paths.is_empty()
                || fresh.read_since.elapsed().unwrap() < Duration::from_secs(3)
        );
    }
}

/// An AIP-10 snapshot taken under another workspace policy is not used, and pages whose
/// `max-age` findings the clock has changed since (here: parsed "a day earlier", one day
/// fewer in their message) are read again, so the store equals a full load.
#[test]
fn aip10_snapshots_follow_the_policy_and_the_clock() {
    let (_keep, root) =
        scratch_copy(&Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/fixtures/aip10-wiki"));
    let kind = crate::store::dialect::aip10::KIND;
    let manifest = root.join("KNOWLEDGE.md");
    let text = fs::read_to_string(&manifest).unwrap().replace("days: 3650", "days: 30");
    fs::write(&manifest, text).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(dir.path());
    let mut store = Store::load(&root, kind, "t".into());
    store.read_since = std::time::SystemTime::now() + Duration::from_secs(5);
    let stale = |s: &Store| -> Vec<String> {
        s.entities
            .iter()
            .filter(|e| e.problems.iter().any(|p| p.message.contains("days ago")))
            .map(|e| e.path.clone())
            .collect()
    };
    let aged = stale(&store);
    assert!(aged.len() > 3, "{aged:?}");
    // The snapshot as a load a day earlier would have left it.
    for e in store.entities.iter_mut().filter(|e| aged.contains(&e.path)) {
        for p in &mut Arc::make_mut(e).problems {
            if let Some(rest) = p.message.strip_prefix("last updated ") {
                let (days, tail) = rest.split_once(' ').unwrap();
                p.message = format!("last updated {} {tail}", days.parse::<i64>().unwrap() - 1);
            }
        }
    }
    cache.save(&store).unwrap();
    let mut cached = cache.load(&root, kind, "t".into()).unwrap();
    assert_eq!(validate::validate(&cached).paths, aged, "exactly the aged pages are read again");
    cached.revalidate();
    assert_eq!(fingerprint(&cached), fingerprint(&Store::load(&root, kind, "t".into())));
    // Up to date now: nothing is read again. A new policy: the snapshot is not used.
    cached.read_since = std::time::SystemTime::now() + Duration::from_secs(5);
    cache.save(&cached).unwrap();
    assert!(validate::validate(&cache.load(&root, kind, "t".into()).unwrap()).paths.is_empty());
    let text = fs::read_to_string(&manifest).unwrap().replace("min: 0.5", "min: 0.95");
    fs::write(&manifest, text).unwrap();
    assert!(matches!(cache.load(&root, kind, "t".into()), Err(Miss::Absent)));
}

/// Files written just before the snapshot was read are doubted once (their mtime is within
/// the slack of the reads), re-read, and the rewritten cache reads as of that check: the
/// next open trusts them and writes nothing.
#[test]
fn files_doubted_for_their_recent_mtime_are_reread_once_not_on_every_open() {
    let (_keep, root) = scratch_copy(&corpus("okf-v0.2/acme_retail"));
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(dir.path());
    let kind = crate::store::dialect::okf::KIND;
    // Touch every file now, load, cache: all of them are within the slack of the reads.
    for e in Store::load(&root, kind, "t".into()).entities.iter() {
        let p = root.join(&e.path);
        let text = std::fs::read(&p).unwrap();
        std::fs::write(&p, text).unwrap();
    }
    cache.save(&Store::load(&root, kind, "t".into())).unwrap();
    std::thread::sleep(Duration::from_millis(2300));
    let file = cache.file_for(&root, kind);
    let mut doubted = cache.load(&root, kind, "t".into()).unwrap();
    assert!(!validate::validate(&doubted).paths.is_empty(), "recent files are doubted");
    doubted.revalidate();
    cache.save(&doubted).unwrap();
    let written = std::fs::metadata(&file).unwrap().modified().unwrap();
    let again = cache.load(&root, kind, "t".into()).unwrap();
    assert_eq!(validate::validate(&again).paths, Vec::<String>::new(), "nothing doubted twice");
    let (_, warnings) = open(Some(&cache), &root, kind, "t".into(), Reads::Entities);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(std::fs::metadata(&file).unwrap().modified().unwrap(), written, "the cache is not rewritten");
}

#[test]
fn changed_added_and_removed_files_are_found_and_reread() {
    let (_keep, root) = scratch_copy(&corpus("okf-v0.2/acme_retail"));
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(dir.path());
    let mut store = Store::load(&root, crate::store::dialect::okf::KIND, "t".into());
    // Pretend the snapshot was taken long after the files were written (no mtime slack).
    store.read_since = std::time::SystemTime::now() + Duration::from_secs(5);
    cache.save(&store).unwrap();
    let paths: Vec<String> = store.entities.iter().map(|e| e.path.clone()).collect();
    let (grown, touched, gone) = (&paths[0], &paths[1], &paths[2]);
    let text = fs::read_to_string(root.join(grown)).unwrap();
    fs::write(root.join(grown), format!("{text}\nmore\n")).unwrap();
    // Same size, other mtime.
    let t = fs::File::options().write(true).open(root.join(touched)).unwrap();
    t.set_modified(std::time::SystemTime::now() - Duration::from_secs(3600)).unwrap();
    fs::remove_file(root.join(gone)).unwrap();
    let parent = crate::store::model::relpath::parent(grown);
    let added = if parent.is_empty() { "added-note.md".to_string() } else { format!("{parent}/added-note.md") };
    fs::write(root.join(&added), "---\ntype: note\ntitle: Added\n---\n# Added\n").unwrap();

    let mut cached = cache.load(&root, crate::store::dialect::okf::KIND, "t".into()).unwrap();
    let mut expected = vec![grown.clone(), touched.clone(), gone.clone(), added.clone()];
    expected.sort();
    assert_eq!(validate::validate(&cached).paths, expected);
    let report = cached.revalidate();
    assert_eq!(report.parsed, 3, "only the grown, touched and added files are read");
    assert!(!cached.from_cache);
    let fresh = Store::load(&root, crate::store::dialect::okf::KIND, "t".into());
    assert_eq!(fingerprint(&cached), fingerprint(&fresh));
}

#[test]
fn a_corrupt_truncated_or_foreign_cache_is_ignored_with_a_reason() {
    let root = corpus("okf-v0.2/acme_retail");
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(dir.path());
    let store = Store::load(&root, crate::store::dialect::okf::KIND, "t".into());
    let file = cache.save(&store).unwrap();
    let good = fs::read(&file).unwrap();
    let reason = |c: &Cache| match c.load(&root, crate::store::dialect::okf::KIND, "t".into()) {
        Err(Miss::Invalid(why)) => why,
        Err(Miss::Absent) => "absent".into(),
        Ok(_) => "loaded".into(),
    };
    fs::write(&file, &good[..good.len() / 2]).unwrap();
    assert!(reason(&cache).contains("truncated"), "{}", reason(&cache));
    let mut flipped = good.clone();
    let n = flipped.len();
    flipped[n - 10] ^= 1;
    fs::write(&file, &flipped).unwrap();
    assert!(reason(&cache).contains("checksum"), "{}", reason(&cache));
    fs::write(&file, b"garbage").unwrap();
    assert!(reason(&cache).contains("not a folio cache"), "{}", reason(&cache));
    // Another store's cache under this store's name (a moved store, a copied cache dir).
    let other = tempfile::tempdir().unwrap();
    let moved = other.path().join("moved");
    fs::create_dir(&moved).unwrap();
    fs::write(cache.file_for(&moved, crate::store::dialect::okf::KIND), &good).unwrap();
    let why = match cache.load(&moved, crate::store::dialect::okf::KIND, "t".into()) {
        Err(Miss::Invalid(why)) => why,
        _ => panic!("a cache written for another root was used"),
    };
    assert!(why.contains("written for"), "{why}");
    assert!(matches!(cache.load(&root, crate::store::dialect::vault::KIND, "t".into()), Err(Miss::Absent)));
}

#[test]
fn an_unwritable_cache_dir_is_an_error_not_a_panic_and_open_still_loads() {
    let root = corpus("okf-v0.2/acme_retail");
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("file");
    fs::write(&blocker, "not a directory").unwrap();
    let cache = Cache::new(blocker.join("sub"));
    let store = Store::load(&root, crate::store::dialect::okf::KIND, "t".into());
    let e = cache.save(&store).unwrap_err();
    assert!(e.contains("cannot write the cache"), "{e}");
    let (opened, _) = open(Some(&cache), &root, crate::store::dialect::okf::KIND, "t".into(), Reads::Entities);
    assert_eq!(opened.entities.len(), store.entities.len());
}

#[test]
fn clear_removes_one_store_or_all() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(dir.path());
    let a = corpus("okf-v0.2/acme_retail");
    let b = corpus("okf-v0.2/ga4");
    cache.save(&Store::load(&a, crate::store::dialect::okf::KIND, "t".into())).unwrap();
    cache.save(&Store::load(&b, crate::store::dialect::okf::KIND, "t".into())).unwrap();
    assert_eq!(cache.entries().len(), 2);
    assert!(cache.entries().iter().all(|e| e.header.as_ref().is_ok_and(|h| h.build == build_id())));
    assert_eq!(cache.clear(Some((&a, crate::store::dialect::okf::KIND))).unwrap(), 1);
    assert_eq!(cache.entries().len(), 1);
    assert_eq!(cache.clear(None).unwrap(), 1);
    assert!(cache.entries().is_empty());
}

/// A write killed part way leaves a temporary file: the next write removes it once it is
/// older than a writer could still be busy with, and leaves a recent one (another process
/// may be writing it) and every other file alone.
#[test]
fn temporaries_left_by_a_killed_write_are_removed_by_the_next_once_old() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(dir.path());
    let stores = dir.path().join("stores");
    fs::create_dir_all(&stores).unwrap();
    let old = std::time::SystemTime::now() - ABANDONED_AFTER - Duration::from_secs(60);
    for name in [".tmp-abandoned", "not-a-temporary"] {
        let f = fs::File::create(stores.join(name)).unwrap();
        f.set_modified(old).unwrap();
    }
    fs::write(stores.join(".tmp-being-written"), "partial").unwrap();
    let root = corpus("okf-v0.2/acme_retail");
    cache.save(&Store::load(&root, crate::store::dialect::okf::KIND, "t".into())).unwrap();
    let mut left: Vec<String> =
        fs::read_dir(&stores).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    left.retain(|n| !n.ends_with(".folio-cache"));
    left.sort();
    assert_eq!(left, [".tmp-being-written", "not-a-temporary"]);
}
