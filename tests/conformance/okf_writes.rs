//! Every write folio offers on an OKF bundle, as OKF's own tools see it (issue 39): okf-cli and
//! the `okf` crate read the bundle before and after, and their concepts, fields and validity
//! change exactly by the intended change; every frontmatter is parsed as YAML before and after
//! (serde_yaml_ng) and only the intended keys differ, in value or in type. Then `folio undo`
//! gives back what the references saw before, every frontmatter and every byte but the log's.
use crate::okf_reference::{ReferenceView, reference_view};
use crate::support;
use support::*;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// What a write is meant to change.
#[derive(Default)]
struct Intended {
    /// Concepts that go, and come (by id).
    removed: &'static [&'static str],
    added: &'static [&'static str],
    /// A concept that moves: (old id, new id); its frontmatter must be the same.
    moved: Option<(&'static str, &'static str)>,
    /// (file, keys): the only frontmatter keys that change in that file.
    keys: &'static [(&'static str, &'static [&'static str])],
    /// Keys that may change in any other file (a link repointed in `sources[].resource`).
    anywhere: &'static [&'static str],
    /// Concepts whose type, title or description may change as the references list them.
    fields: &'static [&'static str],
    /// The okf crate's finding classes that may come or go (`okf_reference::crate_class`).
    findings: &'static [&'static str],
}

/// What the references and the frontmatter say of a bundle at one moment.
struct Seen {
    view: ReferenceView,
    /// Every `.md` file's frontmatter as YAML (None: no frontmatter block).
    frontmatter: BTreeMap<String, Option<serde_yaml_ng::Value>>,
    /// Every file's bytes but folio's state and the log's.
    bytes: BTreeMap<String, Vec<u8>>,
}

fn frontmatter(text: &str) -> Option<serde_yaml_ng::Value> {
    let rest = text.strip_prefix("---\n")?;
    let end = rest.find("\n---\n").or_else(|| rest.strip_suffix("\n---").map(str::len))?;
    Some(serde_yaml_ng::from_str(&rest[..end]).unwrap_or_else(|e| panic!("frontmatter is no YAML ({e}):\n{text}")))
}

fn seen(root: &Path) -> Option<Seen> {
    let view = reference_view(root)?;
    let mut frontmatter_of = BTreeMap::new();
    let mut bytes = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let rel = e.path().strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            if e.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
                continue;
            }
            let b = std::fs::read(e.path()).unwrap();
            if rel.ends_with(".md") {
                frontmatter_of.insert(rel.clone(), frontmatter(&String::from_utf8_lossy(&b)));
            }
            if rel != "log.md" {
                bytes.insert(rel, b);
            }
        }
    }
    Some(Seen { view, frontmatter: frontmatter_of, bytes })
}

/// The top-level keys whose value or type differs between two frontmatters.
fn changed_keys(a: Option<&serde_yaml_ng::Value>, b: Option<&serde_yaml_ng::Value>) -> BTreeSet<String> {
    let map = |v: Option<&serde_yaml_ng::Value>| -> BTreeMap<String, serde_yaml_ng::Value> {
        v.and_then(|v| v.as_mapping())
            .map(|m| m.iter().map(|(k, v)| (k.as_str().unwrap_or("?").to_string(), v.clone())).collect())
            .unwrap_or_default()
    };
    let (a, b) = (map(a), map(b));
    a.keys().chain(b.keys()).filter(|k| a.get(*k) != b.get(*k)).cloned().collect()
}

fn path_of(id: &str) -> String {
    format!("{id}.md")
}

/// Check the change from `before` to `after` against `intended`.
fn check(name: &str, before: &Seen, after: &Seen, intended: &Intended) {
    let mut wrong = Vec::new();
    // The concepts: the okf crate's, and okf list's when it lists the bundle.
    let mut want: BTreeSet<String> = before.view.crate_ids.clone();
    let (gone, came): (Vec<&str>, Vec<&str>) = match intended.moved {
        Some((from, to)) => ([intended.removed, &[from]].concat(), [intended.added, &[to]].concat()),
        None => (intended.removed.to_vec(), intended.added.to_vec()),
    };
    for id in &gone {
        assert!(want.remove(*id), "{name}: {id} is no concept before the write");
    }
    want.extend(came.iter().map(|s| s.to_string()));
    if after.view.crate_ids != want {
        wrong.push(format!("okf crate concepts: {:?}, want {:?}", after.view.crate_ids, want));
    }
    match (&before.view.list, &after.view.list) {
        (Some(b), Some(a)) => {
            let ids: BTreeSet<String> = a.keys().cloned().collect();
            if ids != want {
                wrong.push(format!("okf list concepts: {ids:?}, want {want:?}"));
            }
            for (id, fields) in b {
                let now_id = match intended.moved {
                    Some((from, to)) if from == id => to,
                    _ => id.as_str(),
                };
                if gone.contains(&id.as_str()) && intended.moved.is_none_or(|(from, _)| from != id) {
                    continue;
                }
                if !intended.fields.contains(&now_id) && a.get(now_id) != Some(fields) {
                    wrong.push(format!("okf list {now_id}: {:?}, was {fields:?}", a.get(now_id)));
                }
            }
        }
        (None, None) => {}
        (b, a) => wrong.push(format!("okf list refused before: {}, after: {}", b.is_none(), a.is_none())),
    }
    // Validity: okf validate's errors, and the crate's findings but the intended classes.
    if after.view.validate != before.view.validate {
        wrong.push(format!("okf validate: {:?}, was {:?}", after.view.validate, before.view.validate));
    }
    let outside = |s: &BTreeSet<(String, String)>| -> BTreeSet<(String, String)> {
        s.iter().filter(|(_, c)| !intended.findings.contains(&c.as_str())).cloned().collect()
    };
    let (b, a) = (outside(&before.view.crate_said), outside(&after.view.crate_said));
    if a != b {
        let came: Vec<_> = a.difference(&b).collect();
        let went: Vec<_> = b.difference(&a).collect();
        wrong.push(format!("okf crate findings came {came:?}, went {went:?}"));
    }
    // Every frontmatter: only the intended keys differ, in value or in type.
    for (path, old) in &before.frontmatter {
        let new_path = match intended.moved {
            Some((from, to)) if *path == path_of(from) => path_of(to),
            _ => path.clone(),
        };
        let Some(new) = after.frontmatter.get(&new_path) else {
            if !gone.iter().any(|id| path_of(id) == *path) {
                wrong.push(format!("{path} is gone"));
            }
            continue;
        };
        let allowed: BTreeSet<&str> = intended
            .keys
            .iter()
            .filter(|(p, _)| *p == path.as_str())
            .flat_map(|(_, k)| k.iter().copied())
            .chain(intended.anywhere.iter().copied())
            .collect();
        let changed = changed_keys(old.as_ref(), new.as_ref());
        let unintended: Vec<&String> = changed.iter().filter(|k| !allowed.contains(k.as_str())).collect();
        if !unintended.is_empty() {
            wrong.push(format!("{path}: keys {unintended:?} changed"));
        }
    }
    for (path, keys) in intended.keys {
        let old = before.frontmatter.get(*path).cloned().flatten();
        let new = after.frontmatter.get(*path).cloned().flatten();
        let changed = changed_keys(old.as_ref(), new.as_ref());
        if keys.iter().all(|k| !changed.contains(*k)) {
            wrong.push(format!("{path}: none of {keys:?} changed"));
        }
    }
    for path in after.frontmatter.keys() {
        // The bundle's log, made by the write's event when the bundle had none (a reserved
        // file: `okf validate` checks it above).
        let new_one = came.iter().any(|id| path_of(id) == *path) || path == "log.md";
        if !before.frontmatter.contains_key(path) && !new_one {
            wrong.push(format!("{path} appeared"));
        }
    }
    assert!(wrong.is_empty(), "{name}:\n{}", wrong.join("\n"));
}

/// Run one write on a scratch copy of `bundle` (after `setup`) and check it, then undo it.
fn write_case(bundle: &str, name: &str, setup: impl Fn(&Path), args: &[&str], intended: Intended) {
    let (_dir, root) = writable_scratch(&corpus(bundle));
    setup(&root);
    let Some(before) = seen(&root) else { return };
    let r = root.to_str().unwrap();
    // `COMMIT`: the commit the setup made, by its short hash.
    let commit = if args.contains(&"COMMIT") {
        support::git::run_as(&root, "Ann Lee", "2026-07-01T10:00:00Z", &["rev-parse", "--short=8", "HEAD"])
            .trim()
            .to_string()
    } else {
        String::new()
    };
    let mut full: Vec<&str> = Vec::new();
    for a in args {
        full.push(match *a {
            "ROOT" => r,
            "COMMIT" => &commit,
            other => other,
        });
    }
    full.extend(["--as", "human:conformance"]);
    let o = folio(&full);
    assert!(o.status.success(), "{name}: folio {full:?}: {}", String::from_utf8_lossy(&o.stderr));
    let after = seen(&root).unwrap();
    check(&format!("{bundle} {name}"), &before, &after, &intended);
    let o = folio(&["undo", r, "--as", "human:conformance"]);
    assert!(o.status.success(), "{name}: undo: {}", String::from_utf8_lossy(&o.stderr));
    let undone = seen(&root).unwrap();
    check(&format!("{bundle} {name}, undone"), &before, &undone, &Intended::default());
    assert!(undone.bytes == before.bytes, "{bundle} {name}: undo is not byte-exact");
    let mut undone_frontmatter = undone.frontmatter.clone();
    if !before.frontmatter.contains_key("log.md") {
        assert_eq!(
            undone_frontmatter.remove("log.md").flatten(),
            None,
            "{bundle} {name}: a new log has no frontmatter"
        );
    }
    assert_eq!(undone_frontmatter, before.frontmatter, "{bundle} {name}: undo");
}

const ACME: &str = "okf-v0.2/acme_retail";
const GA4: &str = "okf-v0.2/ga4";

fn nothing(_: &Path) {}

#[test]
fn review_verdicts_change_only_what_they_record() {
    write_case(
        ACME,
        "approve",
        nothing,
        &["review", "ROOT", "approve", "skills/run-on-bq"],
        Intended { keys: &[("skills/run-on-bq.md", &["verified"])], ..Default::default() },
    );
    // A draft becomes stable as it is approved.
    write_case(
        GA4,
        "approve a draft",
        |root| {
            let p = root.join("tables/events_.md");
            let text = std::fs::read_to_string(&p).unwrap();
            let (head, rest) = text.split_once("\n---\n").unwrap();
            std::fs::write(&p, format!("{head}\nstatus: draft\n---\n{rest}")).unwrap();
        },
        &["review", "ROOT", "approve", "tables/events_"],
        Intended { keys: &[("tables/events_.md", &["verified", "status"])], ..Default::default() },
    );
    // Deprecating a concept: the crate now flags the links into it (V29), as it does the
    // bundle's other deprecated concept.
    write_case(
        ACME,
        "veto",
        nothing,
        &["review", "ROOT", "veto", "metrics/revenue", "--reason", "double counts refunds"],
        Intended {
            keys: &[("metrics/revenue.md", &["status", "vetoed"])],
            findings: &["deprecated-link"],
            ..Default::default()
        },
    );
    write_case(
        ACME,
        "merge",
        nothing,
        &["review", "ROOT", "merge", "metrics/gross-margin-legacy", "metrics/gross-margin"],
        Intended {
            removed: &["metrics/gross-margin-legacy"],
            keys: &[("metrics/gross-margin.md", &["merged_from", "aliases"])],
            anywhere: &["sources"],
            // The links into the deprecated concept it absorbed are repointed.
            findings: &["deprecated-link"],
            ..Default::default()
        },
    );
}

#[test]
fn edits_change_only_the_named_field_or_path() {
    write_case(
        ACME,
        "set",
        nothing,
        &["set", "ROOT", "tables/orders", "description", "Every order, one row each."],
        Intended { keys: &[("tables/orders.md", &["description"])], ..Default::default() },
    );
    write_case(
        GA4,
        "set the title",
        nothing,
        &["set", "ROOT", "tables/events_", "title", "GA4 events"],
        Intended { keys: &[("tables/events_.md", &["title"])], fields: &["tables/events_"], ..Default::default() },
    );
    // A move repoints every link and `sources[].resource` naming the concept.
    write_case(
        ACME,
        "mv",
        nothing,
        &["mv", "ROOT", "tables/orders", "tables/customer-orders"],
        Intended {
            moved: Some(("tables/orders", "tables/customer-orders")),
            anywhere: &["sources"],
            ..Default::default()
        },
    );
    write_case(
        GA4,
        "mv",
        nothing,
        &["mv", "ROOT", "tables/events_", "tables/events"],
        Intended { moved: Some(("tables/events_", "tables/events")), anywhere: &["sources"], ..Default::default() },
    );
}

#[test]
fn catalog_and_lint_fixes_touch_no_concept_but_the_fixed_one() {
    // A concept nobody catalogued: `folio index` lists it, and only the catalogs change.
    let new_concept = |root: &Path| {
        write(
            root,
            "tables/sessions.md",
            "---\ntype: BigQuery Table\ntitle: Sessions\ndescription: One row per session.\n---\n\n# Sessions\n",
        );
    };
    write_case(
        GA4,
        "index",
        new_concept,
        &["index", "ROOT"],
        Intended { findings: &["catalog"], ..Default::default() },
    );
    // lint --fix: a legacy `trigger` becomes `description`, a wikilink a markdown link, and the
    // catalogs take the new concept.
    let legacy = |root: &Path| {
        write(
            root,
            "tables/sessions.md",
            "---\ntype: BigQuery Table\ntitle: Sessions\ntrigger: When counting sessions\n---\n\n# Sessions\n\nSee [[events_]].\n",
        );
    };
    write_case(
        GA4,
        "lint --fix",
        legacy,
        &["lint", "ROOT", "--fix"],
        Intended {
            keys: &[("tables/sessions.md", &["trigger", "description"])],
            fields: &["tables/sessions"],
            findings: &["catalog", "description"],
            ..Default::default()
        },
    );
}

#[test]
fn restore_writes_back_the_committed_frontmatter() {
    if !support::git::available() {
        eprintln!("SKIPPED: the `git` binary is not installed");
        return;
    }
    let edited = |root: &Path| {
        let g = |args: &[&str]| support::git::run_as(root, "Ann Lee", "2026-07-01T10:00:00Z", args);
        g(&["init", "-q"]);
        g(&["add", "-A"]);
        g(&["commit", "-qm", "import"]);
        let p = root.join("tables/orders.md");
        let text = std::fs::read_to_string(&p).unwrap();
        let (head, rest) = text.split_once("\ndescription: ").unwrap();
        let (_, after) = rest.split_once('\n').unwrap();
        std::fs::write(&p, format!("{head}\ndescription: An agent's rewrite.\n{after}")).unwrap();
    };
    write_case(
        ACME,
        "restore",
        edited,
        &["restore", "ROOT", "tables/orders", "COMMIT"],
        Intended { keys: &[("tables/orders.md", &["description"])], ..Default::default() },
    );
}
