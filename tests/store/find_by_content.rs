//! Find by content: full-text recall over every body, near-duplicates and contradiction
//! candidates, on generated stores with planted cases and on the real evolve example.
use crate::support;
use support::*;

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

/// A small deterministic generator (the test must not depend on a random seed).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Pseudo-words from syllables: a vocabulary of areas, each with its own words, so that
/// unrelated entries of one area share some words by chance.
fn vocabulary() -> Vec<Vec<String>> {
    const SYLLABLES: [&str; 24] = [
        "ka", "lor", "min", "dre", "sto", "vel", "qua", "ris", "tem", "bo", "nix", "gal", "pra", "sul", "ten", "wy",
        "zor", "fen", "mak", "tri", "hol", "dun", "ser", "jo",
    ];
    (0..20)
        .map(|area| {
            (0..150)
                .map(|k| {
                    let n = area * 150 + k;
                    format!("{}{}{}", SYLLABLES[n % 24], SYLLABLES[(n / 24) % 24], SYLLABLES[(n / 576 + area) % 24])
                })
                .collect()
        })
        .collect()
}

/// How an agent words one lesson, and how it words it again another day.
const FIRST: [&str; 4] = [
    "When {0} fails, check the {1} settings before touching {2}.",
    "The {3} module depends on {4} and needs {6} to be configured.",
    "Run {6} against {5} to rebuild the {1} cache.",
    "{7} reports errors about {2} when {4} is stale.",
];
const AGAIN: [&str; 4] = [
    "Before touching {2}, look at the {1} configuration whenever {0} breaks.",
    "{3} relies on {4}; {6} has to be set up first.",
    "To regenerate the cache of {1}, execute {6} on {5}.",
    "If {4} is out of date, {7} complains about {2}.",
];
/// What every entry of the store carries: the agent's template.
const BOILERPLATE: &str = "## Rationale\n\nThis entry was recorded automatically by the agent after a working session. Review it before relying on it in another project.\n\n## Provenance\n\nSource: session log. Owner: the agent. Visibility: private.\n";

fn fill(templates: &[&str], slots: &[String]) -> String {
    templates
        .iter()
        .map(|t| {
            let mut s = t.to_string();
            for (n, w) in slots.iter().enumerate() {
                s = s.replace(&format!("{{{n}}}"), w);
            }
            s
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn entry(description: &str, body: &str) -> String {
    format!("---\ntype: guideline\ndescription: {description}\n---\n\n{body}\n\n{BOILERPLATE}")
}

/// A generated evolve-like store: `pairs` planted paraphrase pairs (two of their eight topic
/// words changed, one sentence left out, other phrasing), some exact copies, and unrelated
/// entries written from the same templates. Returns the planted pairs as (file stem, file stem).
fn paraphrase_store(root: &Path, unrelated: usize, pairs: usize, copies: usize) -> BTreeSet<(String, String)> {
    let vocab = vocabulary();
    let mut rng = Lcg(42);
    let topic = |rng: &mut Lcg| -> Vec<String> {
        let area = &vocab[rng.below(vocab.len())];
        (0..8).map(|_| area[rng.below(area.len())].clone()).collect()
    };
    let mut planted = BTreeSet::new();
    for i in 0..unrelated {
        let slots = topic(&mut rng);
        let templates = if i % 2 == 0 { &FIRST } else { &AGAIN };
        let body = fill(templates, &slots);
        write(root, &format!("guideline/u{i:04}.md"), entry(&format!("When working with {}", slots[0]), &body));
    }
    for p in 0..pairs {
        let slots = topic(&mut rng);
        let mut again = slots.clone();
        for _ in 0..2 {
            let k = rng.below(8);
            again[k] = topic(&mut rng)[0].clone();
        }
        let dropped = rng.below(4);
        let kept: Vec<&str> = AGAIN.iter().enumerate().filter(|&(n, _)| n != dropped).map(|(_, t)| *t).collect();
        let (a, b) = (format!("p{p:03}a"), format!("p{p:03}b"));
        write(
            root,
            &format!("guideline/{a}.md"),
            entry(&format!("When working with {}", slots[0]), &fill(&FIRST, &slots)),
        );
        write(
            root,
            &format!("guideline/{b}.md"),
            entry(&format!("Working on {} or {}", again[1], again[0]), &fill(&kept, &again)),
        );
        planted.insert((a, b));
    }
    for c in 0..copies {
        let slots = topic(&mut rng);
        let text = entry(&format!("When working with {}", slots[0]), &fill(&FIRST, &slots));
        let (a, b) = (format!("c{c:03}a"), format!("c{c:03}b"));
        write(root, &format!("guideline/{a}.md"), &text);
        write(root, &format!("guideline/{b}.md"), &text);
        planted.insert((a, b));
    }
    planted
}

fn lint_json(root: &Path) -> Value {
    folio_json(&["lint", "--format", "json", root.to_str().unwrap()])
}

fn findings<'v>(v: &'v Value, rule: &str) -> Vec<&'v Value> {
    v["findings"].as_array().unwrap().iter().filter(|f| f["rule"] == rule).collect()
}

/// The file stem of an entity id (`guideline/p001a` → `p001a`).
fn stem(id: &str) -> String {
    id.rsplit('/').next().unwrap().to_string()
}

/// The other entity a near-duplicate or contradiction message names.
fn other(message: &str) -> String {
    let start = message.find('`').unwrap() + 1;
    let end = start + message[start..].find('`').unwrap();
    stem(&message[start..end])
}

fn reported_pairs(v: &Value, rule: &str) -> BTreeSet<(String, String)> {
    findings(v, rule)
        .iter()
        .map(|f| {
            let (a, b) = (stem(f["entity"].as_str().unwrap()), other(f["message"].as_str().unwrap()));
            if a < b { (a, b) } else { (b, a) }
        })
        .collect()
}

#[test]
fn planted_paraphrases_are_found_with_high_recall_and_precision() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("store");
    // More than the all-pairs limit: candidates come from MinHash banding.
    let planted = paraphrase_store(&root, 700, 60, 6);
    std::fs::create_dir_all(root.join(".evolve")).unwrap();
    let v = lint_json(&root);
    let reported = reported_pairs(&v, "near-duplicate");
    let hits = reported.intersection(&planted).count() as f64;
    let recall = hits / planted.len() as f64;
    let precision = if reported.is_empty() { 0.0 } else { hits / reported.len() as f64 };
    assert!(
        recall >= 0.9,
        "recall {recall:.2}: missed {:?}",
        planted.difference(&reported).take(5).collect::<Vec<_>>()
    );
    assert!(
        precision >= 0.9,
        "precision {precision:.2}: wrong {:?}",
        reported.difference(&planted).take(5).collect::<Vec<_>>()
    );
    // Exact copies are named so, and warn.
    let copy = findings(&v, "near-duplicate")
        .into_iter()
        .find(|f| f["entity"].as_str().unwrap().ends_with("c000a"))
        .expect("the first copy is reported");
    assert!(copy["message"].as_str().unwrap().starts_with("exact copy of `guideline/c000b`"), "{copy}");
    assert_eq!(copy["severity"], "warn");
}

#[test]
fn the_threshold_comes_from_the_lint_config() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("store");
    paraphrase_store(&root, 40, 5, 0);
    std::fs::create_dir_all(root.join(".evolve")).unwrap();
    assert!(!findings(&lint_json(&root), "near-duplicate").is_empty());
    let config = root.join(".folio/config.toml");
    write(&root, ".folio/config.toml", "[lint.near-duplicate]\nthreshold = 1.0\n");
    assert!(config.exists());
    let strict = lint_json(&root);
    assert!(findings(&strict, "near-duplicate").is_empty(), "only exact copies reach 1.0: {strict}");
}

/// One lesson written twice, the second time with `changed` in place of `original`; each pair
/// about its own made-up system, so that pairs do not overlap each other.
fn contradiction_pair(root: &Path, name: &str, original: &str, changed: &str) {
    let lesson = format!(
        "Parsing the {name}zorvex telemetry export needs the {name}quandrel schema and the {name}brimstale reader. The {name}morvane pipeline reads those frames nightly."
    );
    write(root, &format!("{name}-a.md"), format!("---\ntitle: {name} first\n---\n{lesson} {original}\n"));
    write(root, &format!("{name}-b.md"), format!("---\ntitle: {name} again\n---\n{lesson} {changed}\n"));
}

#[test]
fn planted_contradictions_of_each_pattern_are_candidates_with_both_sentences() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    contradiction_pair(
        root,
        "installed",
        "The flarebox tool is not installed here.",
        "Install flarebox with pip first.",
    );
    contradiction_pair(root, "use", "Always use ripgrep for the search.", "Never use ripgrep for the search.");
    contradiction_pair(root, "number", "The request timeout is 30 seconds.", "The request timeout is 90 seconds.");
    contradiction_pair(root, "agree", "The request timeout is 30 seconds.", "Keep the request timeout at 30 seconds.");
    let v = lint_json(root);
    let found = findings(&v, "possible-contradiction");
    assert!(found.iter().all(|f| f["severity"] == "info"), "never more than info");
    let message = |file: &str| {
        found
            .iter()
            .find(|f| f["path"] == file)
            .unwrap_or_else(|| panic!("{file}: no possible-contradiction in {v}"))["message"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let m = message("installed-a.md");
    assert!(m.contains("`flarebox` is not installed") && m.contains("\"Install flarebox with pip first.\""), "{m}");
    assert!(m.contains("\"The flarebox tool is not installed here.\""), "{m}");
    let m = message("use-b.md");
    assert!(m.contains("do not use `ripgrep`") && m.contains("\"Always use ripgrep for the search.\""), "{m}");
    let m = message("number-a.md");
    assert!(m.contains("`timeout` is 30") && m.contains("`timeout` is 90"), "{m}");
    assert!(message("number-b.md").contains("may contradict `number-a`"));
    assert!(found.iter().all(|f| !f["path"].as_str().unwrap().starts_with("agree")), "agreeing texts: {v}");
    // Every contradiction candidate is a near-duplicate pair first.
    assert_eq!(reported_pairs(&v, "near-duplicate").len(), 4);
}

#[test]
fn evolve_example_pillow_ranks_first_and_the_exif_guidelines_are_near_duplicates() {
    let Some(repo) = corpus_or_skip("evolve/public-repo-vinodmut") else { return };
    let (_dir, root) = scratch(&repo);
    let store = root.to_str().unwrap();
    let pillow = "guideline/when-extracting-image-exif-metadata-in-this-sandbox";
    let other_exif = "guideline/in-this-workspace-environment-skip-directly-to-python";

    let v = folio_json(&["recall", "--text", "--json", store, "pillow"]);
    let results = v["results"].as_array().unwrap();
    assert_eq!(results[0]["id"], pillow, "{v:#}");
    let line = &results[0]["lines"][0];
    let text = line["text"].as_str().unwrap();
    let marked: Vec<&str> = line["marks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &text[m[0].as_u64().unwrap() as usize..m[1].as_u64().unwrap() as usize])
        .collect();
    assert_eq!(marked, ["Pillow", "Pillow"], "{line}");
    assert_eq!(line["line"], 10, "the body line in the file");
    // Without --text the fuzzy fields alone do not put it first (what the issue reports).
    let fuzzy = folio_json(&["recall", "--json", store, "pillow"]);
    assert_ne!(fuzzy["results"][0]["id"], pillow);
    // A sentence of prose finds the page whose body says it, not a field holding its letters
    // scattered (issue 41: the EXIF guideline outranked the git one on fuzzy field scores).
    let v = folio_json(&["recall", "--text", "--json", store, "git push asks for a password in the sandbox"]);
    let ids: Vec<&str> = v["results"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids.first(), Some(&"guideline/when-publishing-to-github-from-this-sandbox-environment-git"), "{ids:?}");

    let v = lint_json(&root);
    let pairs = reported_pairs(&v, "near-duplicate");
    assert_eq!(pairs, BTreeSet::from([(stem(other_exif), stem(pillow))]), "{v:#}");
    let contradiction = findings(&v, "possible-contradiction");
    assert_eq!(contradiction.len(), 2);
    let m = contradiction[0]["message"].as_str().unwrap();
    assert!(m.contains("Neither exiftool nor PIL/Pillow are installed.") && m.contains("pip install Pillow -q"), "{m}");

    // The review queue gives them a reason of their own.
    let queue = folio_json(&["review", store, "list", "--json"]);
    let flagged: BTreeSet<&str> = queue["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["reasons"].as_array().unwrap().iter().any(|r| r == "near-duplicate"))
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(flagged, BTreeSet::from([pillow, other_exif]));
}

#[test]
fn text_recall_takes_phrases_and_filters_and_prints_the_matching_lines() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "a.md",
        "---\ntitle: Backups\ntags: [ops]\n---\n# Backups\n\nCopy the archive with rsync nightly.\nNothing else.\n",
    );
    write(root, "b.md", "---\ntitle: Mirrors\ntags: [web]\n---\n# Mirrors\n\nThe archive copy runs at noon.\n");
    write(root, "c.md", "---\ntitle: Unrelated\n---\n# Unrelated\n\nNo words of the query.\n");
    let store = root.to_str().unwrap();
    let ids = |query: &str| -> Vec<String> {
        let v = folio_json(&["recall", "--text", "--json", store, query]);
        v["results"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_string()).collect()
    };
    let both = ids("archive");
    assert_eq!(both.iter().collect::<BTreeSet<_>>(), BTreeSet::from([&"a".to_string(), &"b".to_string()]));
    assert_eq!(ids("\"copy the archive\""), ["a"], "a phrase: words in this order");
    assert_eq!(ids("\"archive copy\""), ["b"]);
    assert_eq!(ids("archive tag:web"), ["b"], "filters as in fuzzy recall");
    let out = stdout(&folio(&["recall", "--text", store, "rsync"]));
    assert!(out.contains("  a  Backups\n") && out.contains("    7: Copy the archive with rsync nightly."), "{out}");
}

#[test]
fn an_entity_restating_the_source_it_cites_is_not_a_near_duplicate() {
    // acme_retail's Gross Margin cites the margin standard in `sources:` and restates its
    // formula: a summary of its source, not an accidental second copy.
    let v = lint_json(&corpus("okf-v0.2/acme_retail"));
    let pairs = reported_pairs(&v, "near-duplicate");
    assert!(
        !pairs.iter().any(|(a, b)| [a, b].contains(&&"gross-margin".to_string())),
        "a cited source is reported as a near-duplicate: {pairs:?}"
    );
}

/// A person decides a possible contradiction from the CLI: confirmed, both OKF concepts name
/// each other in `contradicts` (the declared rule and the inbox take over and the candidate is
/// gone); dismissed, the pair is remembered in the config and never reported again, while the
/// rule still reports other pairs. A format without the field refuses and writes nothing.
#[test]
fn a_possible_contradiction_is_confirmed_or_dismissed() {
    let (_dir, root) = scratch(&corpus("okf-v0.2/acme_retail"));
    let concept = |name: &str, sentence: &str| {
        let lesson = format!(
            "Parsing the {name}zorvex telemetry export needs the {name}quandrel schema and the {name}brimstale reader. The {name}morvane pipeline reads those frames nightly."
        );
        format!(
            "---\ntype: Metric\ntitle: {name}\ndescription: {name} lesson\nstatus: stable\n---\n\n{lesson} {sentence}\n"
        )
    };
    write(&root, "metrics/use-a.md", concept("use", "Always use ripgrep for the search."));
    write(&root, "metrics/use-b.md", concept("use", "Never use ripgrep for the search."));
    write(&root, "metrics/timeout-a.md", concept("timeout", "The request timeout is 30 seconds."));
    write(&root, "metrics/timeout-b.md", concept("timeout", "The request timeout is 90 seconds."));
    let r = root.to_str().unwrap();
    let candidates = |v: &Value| -> BTreeSet<String> {
        findings(v, "possible-contradiction").iter().map(|f| f["path"].as_str().unwrap().to_string()).collect()
    };
    let before = lint_json(&root);
    assert_eq!(candidates(&before).len(), 4, "{before:#}");

    let o = folio(&["review", r, "contradicts", "metrics/use-a", "metrics/use-b", "--as", "human:t"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let a = std::fs::read_to_string(root.join("metrics/use-a.md")).unwrap();
    let b = std::fs::read_to_string(root.join("metrics/use-b.md")).unwrap();
    assert!(a.contains("contradicts:") && a.contains("metrics/use-b"), "{a}");
    assert!(b.contains("contradicts:") && b.contains("metrics/use-a"), "{b}");
    let log = std::fs::read_to_string(root.join("log.md")).unwrap();
    assert!(log.contains("contradict each other"), "logged: {log}");
    let after = lint_json(&root);
    assert_eq!(candidates(&after), BTreeSet::from(["metrics/timeout-a.md".into(), "metrics/timeout-b.md".into()]));
    let declared: BTreeSet<&str> =
        findings(&after, "contradiction").iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert!(declared.contains("metrics/use-a.md") && declared.contains("metrics/use-b.md"), "{after:#}");
    let queue = folio_json(&["review", r, "list", "--json"]);
    let reason_of = |id: &str| -> Vec<String> {
        let items = queue["items"].as_array().unwrap();
        let item = items.iter().find(|i| i["id"] == id).unwrap_or_else(|| panic!("{id} not queued: {queue:#}"));
        item["reasons"].as_array().unwrap().iter().map(|r| r.as_str().unwrap().to_string()).collect()
    };
    assert!(reason_of("metrics/use-a").contains(&"contradiction".to_string()));

    let o = folio(&[
        "review",
        r,
        "dismiss",
        "metrics/timeout-b",
        "metrics/timeout-a",
        "--reason",
        "units differ",
        "--as",
        "human:t",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let config = std::fs::read_to_string(root.join(".folio/config.toml")).unwrap();
    assert!(config.contains("other = \"metrics/timeout-a\"") && config.contains("units differ"), "{config}");
    let dismissed = lint_json(&root);
    assert!(candidates(&dismissed).is_empty(), "{dismissed:#}");
    assert!(findings(&dismissed, "near-duplicate").len() >= 4, "the pair is still a near-duplicate");
    let again =
        folio(&["review", r, "dismiss", "metrics/timeout-a", "metrics/timeout-b", "--reason", "x", "--as", "human:t"]);
    assert!(!again.status.success() && String::from_utf8_lossy(&again.stderr).contains("already dismissed"));

    // A vault has no `contradicts` field: refused, nothing written.
    let dir = tempfile::tempdir().unwrap();
    contradiction_pair(dir.path(), "use", "Always use ripgrep for the search.", "Never use ripgrep for the search.");
    let tree = support::tree(dir.path(), &[]);
    let v = dir.path().to_str().unwrap();
    let o = folio(&["review", v, "contradicts", "use-a", "use-b", "--as", "human:t"]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("no field for a contradiction"));
    assert_eq!(support::tree(dir.path(), &[]), tree);
}
