//! Live reload as an agent drives it (issue 44): random edits, appends, copies, creates, deletes,
//! renames and retitles on a generated wild vault large enough for the content rules' LSH (more
//! than `ALL_PAIRS_UP_TO` entities). After every step the store refreshed from the previous one
//! must equal a fresh load, and the report relinted from the previous report (the content
//! rules from their kept state) must equal a full lint of the fresh load, finding for finding.
use std::path::Path;

use folio::store::Store;
use folio::store::dialect::vault;
use folio::store::lint::marks::{self, RowMarks};
use folio::store::lint::{LintConfig, Linted, Report};

use crate::support::write;

/// xorshift64*: the same seed, the same edits.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Words an agent's notes are made of: a few rare ones, so that appending them moves words into
/// and out of the signatures (a word two texts share) and changes the rarity of others.
const NOTE_WORDS: [&str; 12] = [
    "settlement",
    "cutoff",
    "reconcile",
    "ledger",
    "quorum",
    "zephyr",
    "gossamer",
    "halcyon",
    "obsidian",
    "tamarind",
    "vellum",
    "marzipan",
];

fn note(rng: &mut Rng, step: usize) -> String {
    let words: Vec<&str> = (0..3 + rng.below(6)).map(|_| NOTE_WORDS[rng.below(NOTE_WORDS.len())]).collect();
    format!("\nAgent note {step}: {}.\n", words.join(" "))
}

/// Entity files of the store, relative.
fn files(store: &Store) -> Vec<String> {
    let mut paths: Vec<String> = store.entities.iter().map(|e| e.path.clone()).collect();
    paths.dedup();
    paths
}

fn read(root: &Path, rel: &str) -> String {
    String::from_utf8_lossy(&std::fs::read(root.join(rel)).unwrap_or_default()).into_owned()
}

/// One step: 1–3 changes; the relative paths touched.
fn mutate(rng: &mut Rng, root: &Path, store: &Store, step: usize) -> Vec<String> {
    let paths = files(store);
    let pick = |rng: &mut Rng| paths[rng.below(paths.len())].clone();
    let mut touched = Vec::new();
    for k in 0..1 + rng.below(3) {
        match rng.below(20) {
            // An agent appends a line (the common case: same entities, new words).
            0..=8 => {
                let p = pick(rng);
                let text = read(root, &p) + &note(rng, step);
                write(root, &p, text);
                touched.push(p);
            }
            // A copy of another note's body under its own title: an exact or near-exact copy.
            9..=10 => {
                let (p, from) = (pick(rng), pick(rng));
                let title = store.entities.iter().find(|e| e.path == p).map(|e| e.title.clone()).unwrap_or_default();
                let body = read(root, &from);
                let body = body.split_once("\n# ").map_or(body.as_str(), |(_, b)| b).to_string();
                write(root, &p, format!("# {title}\n\n{body}"));
                touched.push(p);
            }
            // Half of one note and half of another: a pair that may or may not reach the threshold.
            11 => {
                let (p, a, b) = (pick(rng), pick(rng), pick(rng));
                let (ta, tb) = (read(root, &a), read(root, &b));
                let half = |t: &str| t.lines().take(t.lines().count() / 2).collect::<Vec<_>>().join("\n");
                let title = store.entities.iter().find(|e| e.path == p).map(|e| e.title.clone()).unwrap_or_default();
                write(root, &p, format!("# {title}\n\n{}\n{}\n", half(&ta), half(&tb)));
                touched.push(p);
            }
            // The body emptied: too few words to compare.
            12 => {
                let p = pick(rng);
                write(root, &p, "# Short\n\nnothing here\n");
                touched.push(p);
            }
            // A new note, copied from another (files added: every weight changes).
            13..=14 => {
                let from = pick(rng);
                let p = format!("agent/new-{step}-{k}.md");
                write(root, &p, read(root, &from) + &note(rng, step));
                touched.push(p);
            }
            // A note deleted.
            15..=16 if paths.len() > 610 => {
                let p = pick(rng);
                let _ = std::fs::remove_file(root.join(&p));
                touched.push(p);
            }
            // A note renamed: its old path goes, a new one comes.
            17 => {
                let p = pick(rng);
                let to = format!("agent/renamed-{step}-{k}.md");
                std::fs::create_dir_all(root.join("agent")).unwrap();
                if std::fs::rename(root.join(&p), root.join(&to)).is_ok() {
                    touched.extend([p, to]);
                }
            }
            // Retitled (what wikilinks resolve by): every link is resolved again.
            _ => {
                let p = pick(rng);
                let text = read(root, &p);
                write(root, &p, format!("# Retitled {step} {k}\n\n{text}"));
                touched.push(p);
            }
        }
    }
    touched
}

/// Two notes deleted and a line appended to a third: what an agent tidying up does.
fn delete_and_append(rng: &mut Rng, root: &Path, store: &Store, step: usize) -> Vec<String> {
    let paths = files(store);
    let mut touched = Vec::new();
    for _ in 0..2 {
        let p = paths[rng.below(paths.len())].clone();
        let _ = std::fs::remove_file(root.join(&p));
        touched.push(p);
    }
    let p = paths[rng.below(paths.len())].clone();
    if !touched.contains(&p) {
        write(root, &p, read(root, &p) + &note(rng, step));
        touched.push(p);
    }
    touched
}

fn graph(s: &Store) -> String {
    format!("{:?}\n{:?}\n{:?}", s.entities, s.backlinks, s.other_files)
}

fn first_difference(a: &Report, b: &Report) -> String {
    for (i, (x, y)) in a.findings.iter().zip(&b.findings).enumerate() {
        if x != y {
            return format!("finding {i}:\n incremental {x:?}\n full        {y:?}");
        }
    }
    format!(
        "{} vs {} findings; suppressed {:?} vs {:?}",
        a.findings.len(),
        b.findings.len(),
        a.suppressed,
        b.suppressed
    )
}

/// The catalog's marks and recall's lint flags of `next`, patched from `prev`'s as the TUI does
/// when `next` says which entities it changed, must equal those made from a full lint; whether
/// they were patched.
fn marks_follow(store: &Store, prev: &Linted, prev_marks: &RowMarks, next: &Linted, full: &Report) -> bool {
    let Some((from, touched)) = next.changed_from() else { return false };
    assert_eq!(from, prev.generation(), "relinted from the previous report");
    let Some(patched) = prev_marks.patched(
        touched,
        marks::of_touched(&prev.report.findings, touched),
        marks::of_touched(&next.report.findings, touched),
    ) else {
        return false;
    };
    assert!(patched == marks::of_report(store, &full.findings), "patched marks differ from marks made again");
    let mut flags = folio::recall::lint_flags(store, &prev.report);
    for &t in touched {
        flags[t as usize] = false;
    }
    for (i, _, _) in marks::of_touched(&next.report.findings, touched) {
        flags[i as usize] = true;
    }
    assert!(flags == folio::recall::lint_flags(store, full), "patched lint flags differ");
    true
}

fn count(report: &Report, rule: &str) -> usize {
    report.findings.iter().filter(|f| f.rule == rule).count()
}

#[test]
fn refreshes_and_relints_equal_a_fresh_load_and_a_full_lint_on_a_wild_vault() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("vault");
    folio_gen::generate_shaped(vault::KIND, 640, 5, &root, folio_gen::Shape::Wild).unwrap();
    let mut store = Store::load(&root, vault::KIND, "test".into());
    assert!(store.entities.len() > 600, "large enough for LSH: {}", store.entities.len());
    let config = LintConfig::default();
    let mut linted = Linted::full(&store, &config);
    let mut rng = Rng(44);
    let mut near_duplicates = Vec::new();
    let (mut patched_steps, mut removals_patched) = (0, 0);
    for step in 0..24 {
        let touched = match step % 6 {
            // An agent deleting notes, and appending to another meanwhile.
            5 => delete_and_append(&mut rng, &root, &store, step),
            _ => mutate(&mut rng, &root, &store, step),
        };
        let (new, refreshed) = store.refreshed(&touched);
        removals_patched += usize::from(!refreshed.removed.is_empty() && !refreshed.relinked_all);
        let fresh = Store::load(&root, vault::KIND, "test".into());
        assert!(
            graph(&new) == graph(&fresh),
            "step {step} after {touched:?}: the refreshed store differs from a fresh load"
        );
        let changed: Vec<String> =
            refreshed.changed.iter().chain(&refreshed.added).chain(&refreshed.removed).cloned().collect();
        let incremental = linted.relint(&store, &new, &changed, &config);
        let full = Linted::full(&fresh, &config);
        assert!(
            *incremental.report == *full.report,
            "step {step} after {touched:?}: {}",
            first_difference(&incremental.report, &full.report)
        );
        near_duplicates.push(count(&full.report, "near-duplicate"));
        let prev_marks = marks::of_report(&store, &linted.report.findings);
        patched_steps += usize::from(marks_follow(&fresh, &linted, &prev_marks, &incremental, &full.report));
        linted = incremental;
        store = new;
    }
    // The edits made and unmade near-duplicates: the comparison had something to compare.
    near_duplicates.dedup();
    assert!(near_duplicates.len() > 3, "near-duplicate counts over the steps: {near_duplicates:?}");
    assert!(patched_steps >= 8, "the marks were patched on {patched_steps} of 24 steps");
    assert!(removals_patched >= 3, "notes removed without resolving every link: {removals_patched} steps");
}

/// A change to the store's files, returning the relative paths it touched.
type Step<'a> = Box<dyn Fn(&Path) -> Vec<String> + 'a>;

/// Hub pages (a folder's `_index.md`, the root `index.md`) created, edited, emptied of an entry
/// and removed, pages added to and removed from a hub's folder, and a page renamed (its
/// findings move to another file): each relint equals a full lint, the hubs' findings included.
#[test]
fn hubs_coming_and_going_relint_as_a_full_lint() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("vault");
    folio_gen::generate_shaped(vault::KIND, 640, 11, &root, folio_gen::Shape::Wild).unwrap();
    let mut store = Store::load(&root, vault::KIND, "test".into());
    let config = LintConfig::default();
    let mut linted = Linted::full(&store, &config);
    let paths = files(&store);
    let folder = paths.iter().find_map(|p| p.rsplit_once('/').map(|(d, _)| d.to_string())).unwrap();
    let in_folder: Vec<String> =
        paths.iter().filter(|p| p.rsplit_once('/').is_some_and(|(d, _)| d == folder)).cloned().collect();
    assert!(in_folder.len() > 6, "a folder with pages: {folder}");
    let stem = |p: &str| p.rsplit('/').next().unwrap().trim_end_matches(".md").to_string();
    let hub = format!("{folder}/_index.md");
    let list = |pages: &[String]| pages.iter().map(|p| format!("- [[{}]]\n", stem(p))).collect::<String>();
    let all_listed = format!("# Everything\n\n{}", list(&paths));
    let steps: Vec<Step> = vec![
        // A folder hub listing three of its pages: stale, the others missing.
        Box::new(|root| {
            write(root, &hub, format!("# Hub\n\n{}", list(&in_folder[..3])));
            vec![hub.clone()]
        }),
        // A page of its folder edited (its kind may be what the hub files it under).
        Box::new(|root| {
            write(root, &in_folder[5], "---\ntype: person\n---\n# Someone\n\nA person now.\n");
            vec![in_folder[5].clone()]
        }),
        // The hub lists every page of its folder: fresh.
        Box::new(|root| {
            write(root, &hub, format!("# Hub\n\n{}", list(&in_folder)));
            vec![hub.clone()]
        }),
        // A root index listing every page: a hub too.
        Box::new(|root| {
            write(root, "index.md", &all_listed);
            vec!["index.md".to_string()]
        }),
        // A page added to the folder: both hubs miss it.
        Box::new(|root| {
            let p = format!("{folder}/added-page.md");
            write(root, &p, "# Added page\n\nNew.\n");
            vec![p]
        }),
        // A listed page removed: a dead entry in both hubs (broken links move to the hubs).
        Box::new(|root| {
            std::fs::remove_file(root.join(&in_folder[1])).unwrap();
            vec![in_folder[1].clone()]
        }),
        // A page renamed: its findings move to another file, the hubs miss the new name.
        Box::new(|root| {
            let to = format!("{folder}/renamed-page.md");
            std::fs::rename(root.join(&in_folder[2]), root.join(&to)).unwrap();
            vec![in_folder[2].clone(), to]
        }),
        // The folder hub removed, then the root index.
        Box::new(|root| {
            std::fs::remove_file(root.join(&hub)).unwrap();
            vec![hub.clone()]
        }),
        Box::new(|root| {
            std::fs::remove_file(root.join("index.md")).unwrap();
            vec!["index.md".to_string()]
        }),
    ];
    let mut hub_findings = Vec::new();
    for (step, change) in steps.iter().enumerate() {
        let touched = change(&root);
        let (new, refreshed) = store.refreshed(&touched);
        let fresh = Store::load(&root, vault::KIND, "test".into());
        assert!(graph(&new) == graph(&fresh), "step {step}: the refreshed store differs from a fresh load");
        let changed: Vec<String> =
            refreshed.changed.iter().chain(&refreshed.added).chain(&refreshed.removed).cloned().collect();
        let incremental = linted.relint(&store, &new, &changed, &config);
        let full = Linted::full(&fresh, &config);
        assert!(
            *incremental.report == *full.report,
            "step {step} after {touched:?}: {}",
            first_difference(&incremental.report, &full.report)
        );
        let on_hubs = |r: &Report| {
            r.findings.iter().filter(|f| f.path.as_deref().is_some_and(|p| p == hub || p == "index.md")).count()
        };
        hub_findings.push(on_hubs(&full.report));
        linted = incremental;
        store = new;
    }
    hub_findings.dedup();
    assert!(hub_findings.len() > 3, "findings on the hubs over the steps: {hub_findings:?}");
}

/// A report relinted a second time (the TUI relints the newest; a script may not) computes its
/// content findings afresh rather than from a state that has moved on.
#[test]
fn relinting_an_older_report_again_still_equals_a_full_lint() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("vault");
    folio_gen::generate_shaped(vault::KIND, 700, 9, &root, folio_gen::Shape::Wild).unwrap();
    let store = Store::load(&root, vault::KIND, "test".into());
    let config = LintConfig::default();
    let base = Linted::full(&store, &config);
    let mut rng = Rng(7);
    let paths = files(&store);
    let (a, b) = (paths[3].clone(), paths[400].clone());
    write(&root, &a, read(&root, &a) + &note(&mut rng, 1));
    let (one, _) = store.refreshed(&[&a]);
    let first = base.relint(&store, &one, std::slice::from_ref(&a), &config);
    // The state now describes `one`; a second branch from `base` must not use it.
    write(&root, &b, format!("# Copy\n\n{}", read(&root, &paths[5])));
    let (two, _) = store.refreshed(&[&a, &b]);
    let second = base.relint(&store, &two, &[a.clone(), b.clone()], &config);
    assert!(*second.report == *Linted::full(&two, &config).report);
    // And the newest report goes on from its own.
    let third = first.relint(&one, &two, std::slice::from_ref(&b), &config);
    assert!(*third.report == *Linted::full(&two, &config).report);
}

/// The content rules' state built ahead of the first change (as the TUI does once a full pass is
/// shown) is built once, and the relints that start from it equal a full lint; a relint leaves
/// its own state, so nothing is built again after it. A small store keeps none.
#[test]
fn a_state_prepared_ahead_serves_the_relints_that_follow() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("vault");
    folio_gen::generate_shaped(vault::KIND, 640, 13, &root, folio_gen::Shape::Wild).unwrap();
    let mut store = Store::load(&root, vault::KIND, "test".into());
    let config = LintConfig::default();
    let mut linted = Linted::full(&store, &config);
    let all = || folio::store::lint::near_duplicate::all_profiles(&store);
    assert!(linted.prepare_relint(&store, &all), "a store past ALL_PAIRS_UP_TO keeps a state");
    assert!(!linted.prepare_relint(&store, &all), "built once");
    let mut rng = Rng(13);
    for step in 0..6 {
        let touched = if step == 5 {
            delete_and_append(&mut rng, &root, &store, step)
        } else {
            mutate(&mut rng, &root, &store, step)
        };
        let (new, refreshed) = store.refreshed(&touched);
        let changed: Vec<String> =
            refreshed.changed.iter().chain(&refreshed.added).chain(&refreshed.removed).cloned().collect();
        let incremental = linted.relint(&store, &new, &changed, &config);
        let full = Linted::full(&Store::load(&root, vault::KIND, "test".into()), &config);
        assert!(
            *incremental.report == *full.report,
            "step {step} after {touched:?}: {}",
            first_difference(&incremental.report, &full.report)
        );
        let kept = || folio::store::lint::near_duplicate::all_profiles(&new);
        assert!(!incremental.prepare_relint(&new, &kept), "step {step}: the relint left its state");
        linted = incremental;
        store = new;
    }

    let small = dir.path().join("small");
    folio_gen::generate_shaped(vault::KIND, 40, 13, &small, folio_gen::Shape::Wild).unwrap();
    let small = Store::load(&small, vault::KIND, "test".into());
    let profiles = || folio::store::lint::near_duplicate::all_profiles(&small);
    assert!(!Linted::full(&small, &config).prepare_relint(&small, &profiles), "all pairs compared, no state");
}
