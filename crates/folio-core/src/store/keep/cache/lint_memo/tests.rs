use super::*;
use crate::store::lint::{self, LintConfig, Report, near_duplicate};
use std::fs;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// A vault of `MIN_ENTITIES` + 1 notes written an hour ago: two near-duplicates, two
/// notes of one title, a link to a picture that is not there, and links between notes.
fn vault() -> tempfile::TempDir {
    side::fixture::aged_vault(|i| match i {
        1 | 2 => (
            "Exif".to_string(),
            "Parse the EXIF metadata with Pillow before exiftool; pillow reads orientation tags.".into(),
        ),
        3 => ("Pictures".into(), "The chart: [pic](pic.png), and [[note-4]].".into()),
        8 | 9 => ("Same title".into(), format!("Entry {i} on q{i} and r{i}.")),
        _ => (
            format!("Note {i}"),
            format!("Body of note {i} about w{} and ledgers q{i} r{i} s{i}; see [[note-{}]].", i % 37, i + 1),
        ),
    })
}

fn load(dir: &Path) -> Store {
    Store::load(dir, crate::store::dialect::vault::KIND, "test".into())
}

/// A remembering lint of `store` and how many times it asked for the profiles.
fn lint_counting(cache: &Cache, store: &Store) -> (Report, usize, Vec<String>) {
    let asked = AtomicUsize::new(0);
    let profiles = || {
        asked.fetch_add(1, Ordering::Relaxed);
        near_duplicate::all_profiles(store)
    };
    let memo = Memo::new(Some(cache), store);
    let report = lint::lint_remembering(store, &LintConfig::default(), &profiles, &memo);
    memo.save();
    (report, asked.into_inner(), memo.warnings())
}

#[test]
fn an_unchanged_store_lints_from_the_memo_alike_and_a_changed_one_anew() {
    let dir = vault();
    let cdir = tempfile::tempdir().unwrap();
    let cache = Cache::new(cdir.path());
    let store = load(dir.path());
    let want = lint::lint(&store, &LintConfig::default());
    for rule in [near_duplicate::RULE, "broken-link", "duplicate-title", "orphan"] {
        assert!(want.findings.iter().any(|f| f.rule == rule), "{rule} is planted");
    }
    let (first, asked, warnings) = lint_counting(&cache, &store);
    assert_eq!((first == want, asked, warnings.len()), (true, 1, 0), "{warnings:?}");
    let (second, asked, warnings) = lint_counting(&cache, &store);
    assert_eq!(asked, 0, "the pairs came from the memo: {warnings:?}");
    assert_eq!(second, want);
    let manifest = store.dialect.manifest_lints();
    let memo = Memo::new(Some(&cache), &store);
    assert!(memo.holds_families(&manifest) && memo.families(&manifest).is_some());

    // The picture appears: no entity file changed, but the link now resolves to it.
    fs::write(dir.path().join("pic.png"), b"png").unwrap();
    let store = load(dir.path());
    let want = lint::lint(&store, &LintConfig::default());
    assert!(!want.findings.iter().any(|f| f.rule == "broken-link" && f.path.as_deref() == Some("note-3.md")));
    // The links now resolve otherwise: neither question is answered from the memo.
    let memo = Memo::new(Some(&cache), &store);
    assert!(!memo.holds_families(&manifest) && memo.families(&manifest).is_none());
    // No file changed, so no profile did: the pairs are judged again from the basis.
    let (third, asked, _) = lint_counting(&cache, &store);
    assert_eq!((third == want, asked), (true, 0));

    // One note edited (an mtime the memo's pass can trust): its duplicate goes.
    let edited = dir.path().join("note-2.md");
    fs::write(&edited, "---\ntitle: Tides\n---\nNow about zanzibar and its spice markets.\n").unwrap();
    fs::File::options()
        .write(true)
        .open(&edited)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(1800))
        .unwrap();
    let store = load(dir.path());
    let want = lint::lint(&store, &LintConfig::default());
    assert!(!want.findings.iter().any(|f| f.rule == near_duplicate::RULE));
    let (fourth, asked, _) = lint_counting(&cache, &store);
    assert_eq!((fourth == want, asked), (true, 1));
    let (fifth, asked, _) = lint_counting(&cache, &store);
    assert_eq!((fifth == want, asked), (true, 0));
}

/// Write `text` to note `i` of `dir`, dated `ago` seconds back (older than the slack).
fn rewrite(dir: &Path, i: usize, text: &str, ago: u64) {
    let p = dir.join(format!("note-{i}.md"));
    fs::write(&p, text).unwrap();
    let then = SystemTime::now() - Duration::from_secs(ago);
    fs::File::options().write(true).open(&p).unwrap().set_modified(then).unwrap();
}

#[test]
fn the_pairs_outlive_a_change_that_leaves_every_profile_as_it_was() {
    let dir = vault();
    let cdir = tempfile::tempdir().unwrap();
    let cache = Cache::new(cdir.path());
    let store = load(dir.path());
    assert_eq!(lint_counting(&cache, &store).1, 1);
    let note = |i: usize| fs::read_to_string(dir.path().join(format!("note-{i}.md"))).unwrap();
    let approved = |text: String| text.replacen("---\n", "---\nstatus: approved\nreviewed: 2026-11-28\n", 1);

    // An approval stamps two fields of a note in no pair: its profile is the same.
    rewrite(dir.path(), 5, &approved(note(5)), 1800);
    let store = load(dir.path());
    let want = lint::lint(&store, &LintConfig::default());
    assert!(want.findings.iter().any(|f| f.rule == near_duplicate::RULE));
    let (report, asked, warnings) = lint_counting(&cache, &store);
    assert_eq!((report == want, asked, warnings.len()), (true, 0, 0), "{warnings:?}");
    // Kept for the store as it is now: the next pass takes the pairs by its digest.
    assert_eq!(lint_counting(&cache, &store).1, 0);

    // A note of a pair found: its kinship may have changed, everything is compared again.
    rewrite(dir.path(), 1, &approved(note(1)), 1700);
    let store = load(dir.path());
    let (report, asked, _) = lint_counting(&cache, &store);
    assert_eq!((report == lint::lint(&store, &LintConfig::default()), asked), (true, 1));

    // Other words in a note in no pair: its profile differs.
    rewrite(dir.path(), 6, &note(6).replace("Body of note", "Text of note"), 1600);
    let store = load(dir.path());
    let (report, asked, _) = lint_counting(&cache, &store);
    assert_eq!((report == lint::lint(&store, &LintConfig::default()), asked), (true, 1));

    // A note added: the entities are numbered otherwise.
    rewrite(dir.path(), 5000, "---\ntitle: New\n---\nA new note on kelp.\n", 1500);
    let store = load(dir.path());
    let (report, asked, _) = lint_counting(&cache, &store);
    assert_eq!((report == lint::lint(&store, &LintConfig::default()), asked), (true, 1));
}

/// Changes made at random to a store with pairs near but not copies, one cited and one of a
/// dated log, each pass of a remembering lint compared with a lint from nothing: whatever
/// the memo took from its basis, the report is the same. EloPhanto's, whose links name
/// notes by title too: a note that claims a title may end a citation no pair's note made.
#[test]
fn a_remembering_lint_after_random_changes_is_a_lint_from_nothing() {
    let load = |dir: &Path| Store::load(dir, crate::store::dialect::elophanto::KIND, "test".into());
    let near = |i: usize| {
        let [tug, rule] = [["assist", "one"], ["escort", "two"], ["berth", "three"]][i % 3];
        format!("Harbour pilots board inbound tankers at the outer buoy; tugs {tug} and the ladder rule {rule} apply.")
    };
    let log = |i: usize| {
        let step = ["rounding", "matching"][i % 2];
        format!("Reviewed the ledger import and the settlement cutoff; fixed the {step} step.")
    };
    let dir = side::fixture::aged_vault(|i| match i {
        1 | 2 => ("Exif".into(), "Parse the EXIF metadata with Pillow before exiftool; pillow reads tags.".into()),
        // Near, not copies: 10 cites 11 by its title, which an earlier note may claim.
        10 => ("Pilots".into(), format!("{} See [[Pilot Boarding]].", near(10))),
        11 => ("Pilot Boarding".into(), near(11)),
        12 => ("Pilots at night".into(), near(12)),
        // Two days of one log, alike: not reported while their titles are dated.
        20 | 21 => (format!("worklog 2026-11-{i}"), log(i)),
        _ => (format!("Note {i}"), format!("Body of note {i} about w{} and q{i}; see [[note-{}]].", i % 37, i + 1)),
    });
    let title = |i: usize, t: &str, ago: u64| {
        let p = dir.path().join(format!("note-{i}.md"));
        let text = fs::read_to_string(&p).unwrap();
        let old = text.lines().find(|l| l.starts_with("title: ")).unwrap().to_string();
        rewrite(dir.path(), i, &text.replacen(&old, &format!("title: {t}"), 1), ago);
    };
    let reported = |a: &str, b: &str| {
        let store = load(dir.path());
        let report = lint::lint(&store, &LintConfig::default());
        report.findings.iter().any(|f| {
            f.rule == near_duplicate::RULE && f.path.as_deref() == Some(a) && f.message.contains(&format!("({b})"))
        })
    };
    // What the fixture is for: a citation and a dated log that each hide a pair.
    assert!(!reported("note-10.md", "note-11.md") && reported("note-11.md", "note-12.md"));
    title(100, "Pilot Boarding", 3500);
    assert!(reported("note-10.md", "note-11.md"), "note-100 claims the title: 10 no longer cites 11");
    title(100, "Note 100", 3500);
    assert!(!reported("note-20.md", "note-21.md"));
    title(20, "worklog notes", 3500);
    assert!(reported("note-20.md", "note-21.md"), "no longer one log's days");
    title(20, "worklog 2026-11-20", 3500);

    let cdir = tempfile::tempdir().unwrap();
    let cache = Cache::new(cdir.path());
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let (mut from_basis, mut anew) = (0, 0);
    for round in 0..40u64 {
        let ago = 3000 - round * 60;
        let i = [1, 5, 10, 11, 20, 30, 100][next(7)];
        let p = dir.path().join(format!("note-{i}.md"));
        let text = fs::read_to_string(&p).unwrap();
        match (i, next(3)) {
            (100, 0) => title(100, "Pilot Boarding", ago),
            (100, 1) => title(100, "Note 100", ago),
            (20, 0) => title(20, "worklog notes", ago),
            (20, 1) => title(20, "worklog 2026-11-20", ago),
            (_, 2) => rewrite(dir.path(), i, &format!("{text}More on kelp {round}.\n"), ago),
            _ => rewrite(dir.path(), i, &text.replacen("---\n", &format!("---\nreviewed: round {round}\n"), 1), ago),
        }
        let store = load(dir.path());
        let want = lint::lint(&store, &LintConfig::default());
        let (report, asked, warnings) = lint_counting(&cache, &store);
        assert!(report == want, "round {round}: note {i} changed");
        assert!(warnings.is_empty(), "{warnings:?}");
        if asked == 0 {
            from_basis += 1;
        } else {
            anew += 1;
        }
    }
    assert!(from_basis >= 5 && anew >= 5, "both ways taken: {from_basis} from the basis, {anew} anew");
}

#[test]
fn a_file_written_just_before_the_memo_was_made_is_not_trusted() {
    let dir = vault();
    let cdir = tempfile::tempdir().unwrap();
    let cache = Cache::new(cdir.path());
    // Written just now, then linted: its mtime is within the slack of the memo's reads.
    // First a third copy of the EXIF note, then other words of the same length.
    let p = dir.path().join("note-5.md");
    let copy = fs::read_to_string(dir.path().join("note-1.md")).unwrap();
    let other = format!(
        "{:<w$}\n",
        "---\ntitle: Corn\n---\nGrind the corn with butter; butter melts quicker.",
        w = copy.len() - 1
    );
    assert_eq!(copy.len(), other.len());
    fs::write(&p, &copy).unwrap();
    let written = fs::metadata(&p).unwrap().modified().unwrap();
    let store = load(dir.path());
    let (report, _, _) = lint_counting(&cache, &store);
    assert!(report.findings.iter().any(|f| f.rule == near_duplicate::RULE && f.path.as_deref() == Some("note-5.md")));
    // Written again within the same mtime tick, the same size: only the mtime's age tells.
    fs::write(&p, &other).unwrap();
    fs::File::options().write(true).open(&p).unwrap().set_modified(written).unwrap();
    let store = load(dir.path());
    let (report, asked, _) = lint_counting(&cache, &store);
    assert_eq!((report == lint::lint(&store, &LintConfig::default()), asked), (true, 1));
}

#[test]
fn a_corrupt_memo_is_ignored_with_a_warning_and_cleared_with_the_cache() {
    let dir = vault();
    let cdir = tempfile::tempdir().unwrap();
    let cache = Cache::new(cdir.path());
    let store = load(dir.path());
    let want = lint::lint(&store, &LintConfig::default());
    lint_counting(&cache, &store);
    let file = cache.side_file(&store.root, store.kind(), LINT_EXT);
    let bytes = fs::read(&file).unwrap();
    // The sections' payloads: the header's, the memo's, the basis's.
    let mut payloads = Vec::new();
    let mut at = MAGIC.len();
    while at < bytes.len() {
        let len = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
        payloads.push(at + 12..at + 12 + len);
        at += 12 + len;
    }
    assert_eq!(payloads.len(), 3);
    let flipped = |section: usize| {
        let mut b = bytes.clone();
        b[payloads[section].start + 1] ^= 1;
        b
    };
    let memo_cut = bytes[..payloads[1].start + 2].to_vec();
    for (bad, why) in [(flipped(1), "checksum"), (memo_cut, "truncated"), (b"x".to_vec(), "")] {
        fs::write(&file, &bad).unwrap();
        let (report, asked, warnings) = lint_counting(&cache, &store);
        assert_eq!((report == want, asked), (true, 1));
        assert!(warnings.len() == 1 && warnings[0].contains(why), "{warnings:?}");
    }
    // A damaged basis, asked once a note changed.
    lint_counting(&cache, &store);
    let p = dir.path().join("note-7.md");
    let text = fs::read_to_string(&p).unwrap().replacen("---\n", "---\nstatus: approved\n", 1);
    rewrite(dir.path(), 7, &text, 1800);
    let store = load(dir.path());
    let want = lint::lint(&store, &LintConfig::default());
    let bytes = fs::read(&file).unwrap();
    let mut bad = bytes.clone();
    let last = bad.len() - 2;
    bad[last] ^= 1;
    fs::write(&file, &bad).unwrap();
    let (report, asked, warnings) = lint_counting(&cache, &store);
    assert_eq!((report == want, asked), (true, 1));
    assert!(warnings.len() == 1 && warnings[0].contains("checksum"), "{warnings:?}");
    cache.save(&store).unwrap();
    assert_eq!(cache.clear(Some((&store.root, store.kind()))).unwrap(), 1);
    assert!(!file.exists());
}
