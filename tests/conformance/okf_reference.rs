//! OKF bundles as OKF's own tools see them (issue 39): every OKF corpus is read by okf-cli
//! (`okf validate`; the concepts `okf list` lists, with their type, title and description) and
//! by the `okf` crate's validator, and compared with `folio lint --format json` and folio's
//! entities. Every disagreement is either fixed in folio or listed in `EXPLAINED` with why: a
//! rule folio adds, a spec reading, a check only the reference makes, or a defect of the
//! reference. An unlisted disagreement fails the test, and so does a listed one that no corpus
//! shows any more. docs/conformance.md has the counts this test prints.
use crate::support;
use support::*;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Which reference said it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tool {
    /// okf-cli's `okf validate` (conformance: OKF v0.2 §11).
    CliValidate,
    /// okf-cli's `okf list`: the concepts and their type, title, description.
    CliList,
    /// The `okf` crate's `validate_bundle_at` (its V1–V36 checks).
    Crate,
}

/// On which side a finding, a concept or a field value is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Side {
    /// The reference reports it, folio does not.
    ReferenceOnly,
    /// folio reports it, the reference does not.
    FolioOnly,
}

/// Why a disagreement is not a defect of folio.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// A rule of folio's own, beyond the format's.
    FolioRule,
    /// folio and the reference read the spec differently; folio's reading is given.
    SpecReading,
    /// A check of the reference's own (soft guidance of the spec that folio leaves alone).
    ReferenceCheck,
    /// The reference is wrong by the spec.
    ReferenceDefect,
}

/// One explained disagreement: every (tool, side, class) it covers, on any corpus.
pub struct Explained {
    pub tool: Tool,
    pub side: Side,
    pub class: &'static str,
    pub why: Why,
    pub text: &'static str,
}

const fn explained(tool: Tool, side: Side, class: &'static str, why: Why, text: &'static str) -> Explained {
    Explained { tool, side, class, why, text }
}

use Side::{FolioOnly, ReferenceOnly};
use Tool::{CliList, CliValidate, Crate};
use Why::{FolioRule, ReferenceCheck, ReferenceDefect, SpecReading};

/// Every disagreement folio keeps, and why.
pub const EXPLAINED: &[Explained] = &[
    explained(
        CliList,
        ReferenceOnly,
        "refuses-bundle",
        SpecReading,
        "`okf list` lists nothing of a bundle `okf validate` rejects (acme_retail, for its log.md); folio reads every \
         concept and reports the log.md as `reserved-file` (§11 makes conformance a property of the bundle, not a \
         reason to read none of it)",
    ),
    explained(
        Crate,
        ReferenceOnly,
        "legacy-timestamp",
        SpecReading,
        "v0.1's `timestamp` in a v0.1 bundle: folio reads OKF v0.1 and v0.2 and takes `timestamp` as the update time \
         (§13.1: consumers MAY fall back to it); the crate judges every bundle by v0.2 (V19)",
    ),
    explained(
        Crate,
        ReferenceOnly,
        "legacy-citations",
        SpecReading,
        "a v0.1 `# Citations` body section: v0.1's own convention (v0.1 §4.2), which folio does not flag in a v0.1 \
         bundle; the crate judges it by v0.2 (V20)",
    ),
    explained(
        Crate,
        ReferenceOnly,
        "tags",
        SpecReading,
        "`tags: a, b` written as one string (knowledge-catalog's stackoverflow bundle): folio reads a comma string as \
         the list it means, as FORMATS.md asks of a tolerant reader; the crate reads no tags from it (V5)",
    ),
    explained(
        Crate,
        ReferenceOnly,
        "path-field",
        ReferenceCheck,
        "`attester.resource` naming `attesters/sql_equality.py`, which the corpus does not carry (knowledge-catalog \
         ships it; the copy keeps the markdown): a path-valued field is a typed edge for folio, and a broken edge to a \
         non-markdown file is no finding — broken cross-links are soft (§11) (V23, V27)",
    ),
    explained(
        Crate,
        ReferenceOnly,
        "deprecated-link",
        ReferenceCheck,
        "a link into a `status: deprecated` concept (acme_retail's gross-margin-legacy): deprecated concepts are \
         \"kept for links and history\" (§5.4), so folio does not flag the links; it shows the status (V29)",
    ),
    explained(
        Crate,
        FolioOnly,
        "reserved-file",
        ReferenceDefect,
        "acme_retail's log.md carries frontmatter: `okf validate` rejects it and folio reports `reserved-file`; the \
         crate skips a log's frontmatter before checking its structure (V32/V33 say nothing), though §9 gives a log \
         none and §11 makes that structure part of conformance",
    ),
    explained(
        Crate,
        FolioOnly,
        "orphan",
        FolioRule,
        "`orphan` (info): no other concept links to this one, nor cites it in a path-valued field; the crate's \
         validator has no such rule (its linter's L9 also counts index.md listings)",
    ),
    explained(
        Crate,
        FolioOnly,
        "near-duplicate",
        FolioRule,
        "`near-duplicate` (info): two concepts saying nearly the same thing, a merge candidate for review",
    ),
];

/// The OKF corpora: `tests/corpora`'s (and `../shared`'s) `okf-v0.1/*` and `okf-v0.2/*` bundles.
pub fn okf_corpora() -> Vec<(String, PathBuf)> {
    corpus_stores().into_iter().filter(|(name, _)| name.starts_with("okf-v")).collect()
}

/// A finding in a class both sides can be compared in: (path, class).
pub type Said = BTreeSet<(String, String)>;

/// folio's rule → the class it is compared in (None: a rule with no counterpart to compare).
fn folio_class(rule: &str, message: &str) -> Option<String> {
    let class = match rule {
        "invalid-frontmatter" => "frontmatter",
        "missing-type" if message.starts_with("no frontmatter block") => "frontmatter",
        "missing-type" => "type",
        "reserved-file" | "reserved-name" => "reserved-file",
        "missing-description" => "description",
        "invalid-field" => "field",
        "stale" => "stale",
        "broken-link" => "broken-link",
        "catalog-stale" => "catalog",
        "duplicate-title" => "duplicate-title",
        "non-utf8" => "utf8",
        other => other,
    };
    Some(class.to_string())
}

/// The classes `okf validate` checks (OKF v0.2 §11): conformance only.
const VALIDATE_CLASSES: &[&str] = &["frontmatter", "type", "reserved-file", "utf8"];

/// `okf validate`'s error line (`<rel>: <message>`) → (path, class).
fn validate_class(line: &str) -> (String, String) {
    let (path, message) = line.split_once(": ").unwrap_or(("", line));
    let class = if message.contains("frontmatter missing non-empty 'type'") {
        "type"
    } else if message.contains("missing or unparseable YAML frontmatter") {
        "frontmatter"
    } else if message.contains("must not contain frontmatter") || message.contains("may only contain") {
        "reserved-file"
    } else if message.contains("not valid UTF-8") {
        "utf8"
    } else {
        return (path.to_string(), format!("unknown: {message}"));
    };
    (path.to_string(), class.to_string())
}

/// The crate's diagnostic message → its class (an unknown one is its own class, so it shows).
fn crate_class(message: &str) -> String {
    let m = message;
    let class = if m.contains("`timestamp` is superseded") {
        "legacy-timestamp"
    } else if m.contains("`# Citations`") {
        "legacy-citations"
    } else if m.starts_with("`tags`") {
        "tags"
    } else if m.contains("does not exist on disk") || m.contains("does not resolve to a file in the bundle") {
        "path-field"
    } else if m.starts_with("links to deprecated concept") {
        "deprecated-link"
    } else if m.starts_with("link target does not resolve") {
        "broken-link"
    } else if (m.contains("log") && (m.contains("frontmatter") || m.contains("date")))
        || (m.contains("index.md") && m.contains("frontmatter"))
    {
        "reserved-file"
    } else if m.contains("out of sync") {
        "catalog"
    } else if m.contains("`type`") {
        "type"
    } else if m.contains("frontmatter") {
        "frontmatter"
    } else if m.contains("`description`") {
        "description"
    } else if m.contains("stale") {
        "stale"
    } else if m.contains("`status`") || m.contains("ISO") {
        "field"
    } else {
        return format!("unknown: {m}");
    };
    class.to_string()
}

/// What one reference says of one bundle.
#[derive(Debug, Default)]
pub struct ReferenceView {
    pub validate: Said,
    /// `okf list`'s concepts (id → type, title, description), None when it refused the bundle.
    pub list: Option<BTreeMap<String, (String, String, String)>>,
    pub crate_ids: BTreeSet<String>,
    pub crate_fields: BTreeMap<String, (String, String)>,
    pub crate_said: Said,
}

/// The references' view of `dir`; None (after saying why) when okf-cli is not installed.
pub fn reference_view(dir: &Path) -> Option<ReferenceView> {
    let okf = support::reference::tool("okf")?;
    let python = support::reference::python()?;
    let mut view = ReferenceView::default();
    let o = Command::new(&okf).arg("validate").arg(dir).env("NO_COLOR", "1").env("COLUMNS", "400").output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    for line in err.lines().filter_map(|l| l.trim().strip_prefix("Error: ")) {
        view.validate.insert(validate_class(line));
    }
    assert_eq!(o.status.success(), view.validate.is_empty(), "okf validate {}: {err}", dir.display());
    // The function `okf list` prints (okf.api.list_entries), as JSON rather than a table.
    let script = "import json, sys\nfrom okf import api\ntry:\n    print(json.dumps(api.list_entries(sys.argv[1])))\n\
                  except ValueError:\n    print('null')\n";
    let o = Command::new(&python).arg("-c").arg(script).arg(dir).output().unwrap();
    assert!(o.status.success(), "okf list: {}", String::from_utf8_lossy(&o.stderr));
    let listed: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    view.list = listed.as_array().map(|entries| {
        entries
            .iter()
            .map(|e| {
                let s = |k: &str| e[k].as_str().unwrap_or_default().to_string();
                (s("id"), (s("type"), s("title"), s("description")))
            })
            .collect()
    });
    let bundle = okf::Bundle::load(dir).unwrap();
    for c in bundle.concepts() {
        let id = c.id.to_string();
        let ty = c.type_().map(|t| t.to_string()).unwrap_or_default();
        view.crate_fields.insert(id.clone(), (ty, c.display_title()));
        view.crate_ids.insert(id);
    }
    let today = okf::date::Date::parse(&PINNED_NOW[..10]);
    for d in okf::validate_bundle_at(&bundle, today).diagnostics {
        let path =
            d.path.as_deref().and_then(|p| p.strip_prefix(dir).ok()).map(|p| p.to_string_lossy().replace('\\', "/"));
        view.crate_said.insert((path.unwrap_or_default(), crate_class(&d.message)));
    }
    Some(view)
}

/// folio's view of one bundle: its lint findings by class, its concepts and their fields.
pub struct FolioView {
    pub said: Said,
    pub ids: BTreeMap<String, (String, String, String)>,
}

pub fn folio_view(dir: &Path) -> FolioView {
    let lint = folio_json(&["lint", "--format", "json", dir.to_str().unwrap()]);
    assert_eq!(lint["dialect"], "okf", "{}", dir.display());
    let said = lint["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| {
            let class = folio_class(f["rule"].as_str()?, f["message"].as_str().unwrap_or_default())?;
            Some((f["path"].as_str().unwrap_or_default().to_string(), class))
        })
        .collect();
    let store = folio::store::Store::open(dir, None).unwrap();
    let ids = store
        .entities
        .iter()
        .map(|e| {
            let s = |v: Option<&str>| v.unwrap_or_default().to_string();
            (e.id.clone(), (s(e.kind.as_deref()), e.title.clone(), s(e.description.as_deref())))
        })
        .collect();
    FolioView { said, ids }
}

/// One disagreement: (tool, side, class, path or concept).
pub type Disagreement = (Tool, Side, String, String);

/// Every disagreement between folio's view and the references' on one bundle.
pub fn disagreements(folio: &FolioView, reference: &ReferenceView) -> Vec<Disagreement> {
    let mut out = Vec::new();
    let mut both = |tool: Tool, theirs: &Said, ours: &Said| {
        for (path, class) in theirs.difference(ours) {
            out.push((tool, ReferenceOnly, class.clone(), path.clone()));
        }
        for (path, class) in ours.difference(theirs) {
            out.push((tool, FolioOnly, class.clone(), path.clone()));
        }
    };
    let in_scope: Said = folio.said.iter().filter(|(_, c)| VALIDATE_CLASSES.contains(&c.as_str())).cloned().collect();
    both(CliValidate, &reference.validate, &in_scope);
    both(Crate, &reference.crate_said, &folio.said);
    // The concepts and their fields.
    match &reference.list {
        None => out.push((CliList, ReferenceOnly, "refuses-bundle".into(), String::new())),
        Some(list) => {
            for (id, (ty, title, description)) in list {
                let Some((kind, our_title, our_description)) = folio.ids.get(id) else {
                    out.push((CliList, ReferenceOnly, "concept".into(), id.clone()));
                    continue;
                };
                let stem = id.rsplit('/').next().unwrap_or(id);
                let shown_title = if title.is_empty() { stem } else { title.as_str() };
                for (field, theirs, ours) in [
                    ("type", ty.as_str(), kind.as_str()),
                    ("title", shown_title, our_title.as_str()),
                    ("description", description.as_str(), our_description.as_str()),
                ] {
                    if theirs != ours {
                        out.push((CliList, ReferenceOnly, format!("field {field}: {theirs:?} ≠ {ours:?}"), id.clone()));
                    }
                }
            }
            for id in folio.ids.keys().filter(|id| !list.contains_key(*id)) {
                out.push((CliList, FolioOnly, "concept".into(), id.clone()));
            }
        }
    }
    let ours: BTreeSet<&String> = folio.ids.keys().collect();
    for id in reference.crate_ids.iter().filter(|id| !ours.contains(id)) {
        out.push((Crate, ReferenceOnly, "concept".into(), id.clone()));
    }
    for id in ours.iter().filter(|id| !reference.crate_ids.contains(**id)) {
        out.push((Crate, FolioOnly, "concept".into(), (*id).clone()));
    }
    for (id, (ty, title)) in &reference.crate_fields {
        if let Some((kind, our_title, _)) = folio.ids.get(id)
            && (ty != kind || title != our_title)
        {
            out.push((Crate, ReferenceOnly, format!("fields {ty:?}/{title:?} ≠ {kind:?}/{our_title:?}"), id.clone()));
        }
    }
    out
}

/// The entry of `EXPLAINED` that covers a disagreement.
pub fn explanation(d: &Disagreement) -> Option<usize> {
    EXPLAINED.iter().position(|e| e.tool == d.0 && e.side == d.1 && e.class == d.2)
}

#[test]
fn every_okf_corpus_agrees_with_okf_cli_and_the_okf_crate_or_is_explained() {
    let corpora = okf_corpora();
    assert!(corpora.len() >= 6, "{corpora:?}");
    let mut unexplained = Vec::new();
    let mut used = vec![0usize; EXPLAINED.len()];
    let mut per_corpus: BTreeMap<(usize, &str), usize> = BTreeMap::new();
    let mut table = String::from(
        "| corpus | okf validate errors | okf-cli concepts | okf crate findings | folio findings | disagreements | unexplained |\n|---|---|---|---|---|---|---|\n",
    );
    for (name, dir) in &corpora {
        let Some(reference) = reference_view(dir) else { return };
        let folio = folio_view(dir);
        let found = disagreements(&folio, &reference);
        let mut open = 0;
        for d in &found {
            match explanation(d) {
                Some(i) => {
                    used[i] += 1;
                    *per_corpus.entry((i, name.as_str())).or_default() += 1;
                }
                None => {
                    open += 1;
                    unexplained.push(format!("{name}: {:?} {:?} {} {}", d.0, d.1, d.2, d.3));
                }
            }
        }
        let listed = reference.list.as_ref().map_or("refused".to_string(), |l| l.len().to_string());
        table += &format!(
            "| {name} | {} | {listed} | {} | {} | {} | {open} |\n",
            reference.validate.len(),
            reference.crate_said.len(),
            folio.said.len(),
            found.len()
        );
    }
    println!("{table}");
    for (e, n) in EXPLAINED.iter().zip(&used) {
        println!("{n:>3}  {:?} {:?} {} ({:?}): {}", e.tool, e.side, e.class, e.why, e.text);
    }
    for ((i, corpus), n) in &per_corpus {
        println!("{corpus}: {n} × {:?} {:?} {}", EXPLAINED[*i].tool, EXPLAINED[*i].side, EXPLAINED[*i].class);
    }
    assert!(unexplained.is_empty(), "disagreements no entry of EXPLAINED covers:\n{}", unexplained.join("\n"));
    let stale: Vec<&str> = EXPLAINED.iter().zip(&used).filter(|(_, n)| **n == 0).map(|(e, _)| e.class).collect();
    assert!(stale.is_empty(), "entries of EXPLAINED no corpus shows any more: {stale:?}");
}
