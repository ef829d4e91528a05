//! Incremental re-linting after live reloads must equal a full lint of the same store, finding
//! for finding: random edits, creates, deletes and catalog changes on copies of real stores,
//! each step re-linted incrementally from the previous step's result.

use crate::support;
use std::path::Path;

use folio::store::Store;
use folio::store::dialect::DialectKind;
use folio::store::lint::{LintConfig, Linted, Report};
use support::{corpus, fixture, scratch, write};

/// A small deterministic generator (xorshift64*): the same seed, the same edits.
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
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// A concept's text: shared or fresh titles (duplicates), links to other entities by path, by
/// wikilink name and to nothing, sometimes a `contradicts` edge.
fn concept(rng: &mut Rng, store: &Store, n: usize) -> String {
    let others: Vec<(String, String, String)> =
        store.entities.iter().map(|e| (e.path.clone(), e.id.clone(), e.title.clone())).collect();
    let title = if rng.chance(25) && !others.is_empty() {
        rng.pick(&others).2.clone()
    } else {
        format!("Concept {n} {}", rng.below(5))
    };
    let mut fm = format!("---\ntype: {}\ntitle: {title}\n", rng.pick(&["Note", "Table", "Metric"]));
    if rng.chance(80) {
        fm += &format!("description: About {title}.\n");
    }
    if rng.chance(15) && !others.is_empty() {
        fm += &format!("contradicts: {}\n", rng.pick(&others).1);
    }
    let mut body = format!("---\n# {title}\n\n");
    for _ in 0..rng.below(4) {
        if others.is_empty() {
            break;
        }
        let (path, id, _) = rng.pick(&others);
        match rng.below(5) {
            0 => body += &format!("See [it](/{path}).\n"),
            1 => body += &format!("See [[{}]].\n", id.rsplit('/').next().unwrap_or(id)),
            2 => body += &format!("See [gone](/missing-{}.md).\n", rng.below(3)),
            3 => body += "See [folder](/sub/) and [home](https://example.org).\n",
            // Files that are not entities in some dialects (catalogs, AIP-10 sources).
            _ => body += &format!("See [index](/sub/index.md) and [source](/sources/s-{}.md).\n", rng.below(2)),
        }
    }
    fm + &body
}

/// Apply 1–3 random changes; returns the relative paths touched.
fn mutate(rng: &mut Rng, root: &Path, store: &Store, step: usize) -> Vec<String> {
    let mut touched = Vec::new();
    let dirs: Vec<String> = store
        .entities
        .iter()
        .map(|e| e.path.rsplit_once('/').map(|(d, _)| d.to_string()).unwrap_or_default())
        .chain(["".to_string(), "sub".to_string(), format!("new{}", rng.below(3))])
        .collect();
    for k in 0..1 + rng.below(3) {
        let paths: Vec<String> = store.entities.iter().map(|e| e.path.clone()).collect();
        match rng.below(10) {
            0..=3 if !paths.is_empty() => {
                let p = rng.pick(&paths).clone();
                write(root, &p, concept(rng, store, step * 10 + k));
                touched.push(p);
            }
            4..=5 => {
                let dir = rng.pick(&dirs).clone();
                let name = format!("c{}-{}.md", step, k);
                let p = if dir.is_empty() { name } else { format!("{dir}/{name}") };
                write(root, &p, concept(rng, store, step * 10 + k));
                touched.push(p);
            }
            6..=7 if paths.len() > 3 => {
                let p = rng.pick(&paths).clone();
                let _ = std::fs::remove_file(root.join(&p));
                touched.push(p);
            }
            8 => {
                // A catalog appears, changes or goes.
                let dir = rng.pick(&dirs).clone();
                let p = if dir.is_empty() { "index.md".to_string() } else { format!("{dir}/index.md") };
                if rng.chance(30) {
                    let _ = std::fs::remove_file(root.join(&p));
                } else {
                    write(root, &p, format!("# Index\n\n* [x](x.md) - step {step}\n"));
                }
                touched.push(p);
            }
            _ => {
                // A file links can resolve to (a source, an asset, `sub/index.md`).
                let p = match rng.below(3) {
                    0 => format!("sources/s-{}.md", rng.below(2)),
                    1 => "sub/index.md".to_string(),
                    _ => format!("{}/asset-{}.png", rng.pick(&dirs), rng.below(2)).trim_start_matches('/').to_string(),
                };
                if root.join(&p).exists() {
                    let _ = std::fs::remove_file(root.join(&p));
                } else {
                    write(root, &p, b"\x89PNG");
                }
                touched.push(p);
            }
        }
    }
    touched
}

fn first_difference(a: &Report, b: &Report) -> String {
    for (i, (x, y)) in a.findings.iter().zip(&b.findings).enumerate() {
        if x != y {
            return format!("finding {i}:\n incremental {x:?}\n full        {y:?}");
        }
    }
    if a.findings.len() != b.findings.len() {
        let extra = if a.findings.len() > b.findings.len() {
            format!("incremental has extra {:?}", &a.findings[b.findings.len()..])
        } else {
            format!("full has extra {:?}", &b.findings[a.findings.len()..])
        };
        return format!("{} vs {} findings; {extra}", a.findings.len(), b.findings.len());
    }
    format!("suppressed differ:\n{:?}\n{:?}", a.suppressed, b.suppressed)
}

/// Edit the store `steps` times; after each refresh the incremental result must equal a full
/// lint of the refreshed store.
fn check(src: &Path, kind: DialectKind, seed: u64, steps: usize) {
    check_within(src, "", kind, seed, steps)
}

/// `check` on the store at `within` inside a copy of `src` (evolve keeps it in `.evolve/entities`).
fn check_within(src: &Path, within: &str, kind: DialectKind, seed: u64, steps: usize) {
    let (_dir, copy) = scratch(src);
    let root = copy.join(within);
    let mut store = Store::load(&root, kind, "test".into());
    assert!(!store.entities.is_empty(), "{} has entities", src.display());
    // Ignore something on two entities (one of them may be deleted: a stale ignore).
    let ids: Vec<String> = store.entities.iter().take(2).map(|e| e.id.clone()).collect();
    let toml: String = ids
        .iter()
        .map(|id| format!("[[ignore]]\nrule = \"orphan\"\nentity = \"{id}\"\nreason = \"test\"\n\n"))
        .collect();
    let config = LintConfig::parse(&toml).unwrap();
    let mut linted = Linted::full(&store, &config);
    let mut rng = Rng(seed);
    for step in 0..steps {
        let touched = mutate(&mut rng, &root, &store, step);
        let (new, refreshed) = store.refreshed(&touched);
        let changed: Vec<String> =
            refreshed.changed.iter().chain(&refreshed.added).chain(&refreshed.removed).cloned().collect();
        let incremental = linted.relint(&store, &new, &changed, &config);
        let full = Linted::full(&new, &config);
        assert!(
            *incremental.report == *full.report,
            "{} seed {seed} step {step} after {touched:?}: {}",
            src.display(),
            first_difference(&incremental.report, &full.report)
        );
        linted = incremental;
        store = new;
    }
    assert!(!linted.report.findings.is_empty());
}

#[test]
fn okf_fixture_relints_like_a_full_pass() {
    for seed in 1..=4 {
        check(&fixture("lint-okf"), folio::store::dialect::okf::KIND, seed, 40);
    }
}

#[test]
fn okf_corpus_relints_like_a_full_pass() {
    check(&corpus("okf-v0.2/acme_retail"), folio::store::dialect::okf::KIND, 7, 40);
}

#[test]
fn aip10_relints_like_a_full_pass() {
    check(&fixture("aip10-wiki"), folio::store::dialect::aip10::KIND, 11, 30);
}

#[test]
fn vault_and_evolve_relint_like_a_full_pass() {
    check_within(&fixture("evolve-wikilinks"), ".evolve/entities", folio::store::dialect::evolve::KIND, 13, 30);
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    for i in 0..12 {
        write(&vault, &format!("n{}/note{i}.md", i % 3), format!("# Note {i}\n\n[[note{}]]\n", (i + 1) % 12));
    }
    check(&vault, folio::store::dialect::vault::KIND, 17, 40);
}

#[test]
fn a_config_change_to_ignores_only_resorts_the_findings() {
    let (_dir, root) = scratch(&fixture("lint-okf"));
    let store = Store::load(&root, folio::store::dialect::okf::KIND, "test".into());
    let linted = Linted::full(&store, &LintConfig::default());
    let orphan = linted.report.findings.iter().find(|f| f.rule == "orphan").expect("an orphan");
    let id = store.entity(orphan.entity.unwrap()).id.clone();
    let config = LintConfig::parse(&format!(
        "[[ignore]]\nrule = \"orphan\"\nentity = \"{id}\"\nreason = \"entry\"\n[[ignore]]\nrule = \"orphan\"\nentity = \"gone\"\nreason = \"old\"\n"
    ))
    .unwrap();
    let again = linted.relint(&store, &store, &[], &config);
    assert_eq!(*again.report, *Linted::full(&store, &config).report);
    assert_eq!(again.report.suppressed.len(), 1);
    assert!(again.report.findings.iter().any(|f| f.rule == "stale-ignore" && f.message.contains("`gone`")));
}
