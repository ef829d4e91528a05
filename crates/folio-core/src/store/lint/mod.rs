//! The lint engine: every finding about a loaded store, for the CLI and the TUI's lint panel.
//!
//! Per-file findings were made by the loader and the dialects while parsing (entity
//! `problems`); store-level ones come from `Dialect::warnings`; the cross-entity rules run here
//! over the model, one module per rule family. Nothing here reads an entity file a second time,
//! except the few files a safe fix would change.
use std::collections::BTreeMap;

use crate::store::Store;
use crate::store::model::entity::{EntityIdx, Severity};

pub mod apply;
pub mod catalogs;
pub mod config;
pub mod duplicates;
pub mod export;
pub mod fix;
pub mod graph;
pub mod ignore;
pub mod incremental;
pub mod judged_pairs;
pub mod kinship;
pub mod links;
pub mod manifest;
pub mod marks;
pub mod near_duplicate;
pub mod possible_contradiction;
pub mod rules;
pub mod text;
pub mod trigger_fix;

pub use config::LintConfig;
pub use fix::Fix;
pub use incremental::Linted;
pub use text::Text;

/// Which part of the engine made a finding: what incremental re-linting recomputes when an
/// entity changes (see `incremental`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Origin {
    /// The loader's and the dialect's per-file problems: depend on the entity's file alone.
    Problem,
    /// Warnings about the store as a whole.
    Store,
    /// Link rules: depend on the entity's links and what they resolve to.
    Link,
    /// `orphan` and `contradiction`: depend on backlinks and typed edges.
    Graph,
    /// `duplicate-id` / `duplicate-title`: depend on every entity sharing the key.
    Duplicate,
    /// `reserved-name` / `catalog-stale`: depend on a catalog's folder.
    Catalog,
    /// `stale-ignore`: depends on the config and on which ids exist.
    Ignore,
    /// `near-duplicate` / `possible-contradiction`: depend on the bodies of the whole store.
    Content,
}

/// One thing wrong with the store.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// A rule id from `rules::RULES`.
    pub rule: &'static str,
    pub severity: Severity,
    pub entity: Option<EntityIdx>,
    /// File relative to the store root; `None` for findings about the store as a whole.
    pub path: Option<Text>,
    /// 1-based position; 0 when the finding is about the whole file.
    pub line: u32,
    pub col: u32,
    pub message: Text,
    /// The safe fix, when there is one: boxed because few findings have one, and a relint
    /// moves every kept finding (docs/benchmarks.md, "Thirty-seventh session").
    pub fix: Option<Box<Fix>>,
    pub origin: Origin,
    /// The other entity of a finding about a pair (`possible-contradiction`): what a person
    /// confirms or dismisses it against.
    pub other: Option<EntityIdx>,
}

impl Finding {
    /// A finding about an entity at the rule's default severity.
    pub fn on_entity(store: &Store, idx: EntityIdx, rule: &'static str, line: u32, col: u32, message: String) -> Self {
        Finding {
            rule,
            severity: default_severity(rule),
            entity: Some(idx),
            path: Some(store.entity(idx).path.as_str().into()),
            line,
            col,
            message: message.into(),
            fix: None,
            origin: Origin::Problem,
            other: None,
        }
    }

    /// A finding about a file that is not an entity (a catalog, a log).
    pub fn on_file(path: &str, rule: &'static str, line: u32, message: String) -> Self {
        Finding {
            rule,
            severity: default_severity(rule),
            entity: None,
            path: Some(path.into()),
            line,
            col: if line == 0 { 0 } else { 1 },
            message: message.into(),
            fix: None,
            origin: Origin::Catalog,
            other: None,
        }
    }

    pub fn with_severity(mut self, severity: Option<Severity>) -> Self {
        if let Some(s) = severity {
            self.severity = s;
        }
        self
    }
}

/// A rule's severity when nothing overrides it (unknown rules warn).
pub fn default_severity(rule: &str) -> Severity {
    rules::lookup(rule).map(|r| r.severity).unwrap_or(Severity::Warn)
}

/// A finding the store-local config ignores (`[[ignore]]`), with the reason given.
#[derive(Debug, Clone, PartialEq)]
pub struct Suppressed {
    pub finding: Finding,
    pub reason: String,
}

/// The result of a lint pass, findings sorted by file, position and rule; the ignored ones
/// apart, in the same order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    pub findings: Vec<Finding>,
    pub suppressed: Vec<Suppressed>,
}

/// Lint the whole store with its store-local configuration applied.
pub fn lint(store: &Store, config: &LintConfig) -> Report {
    lint_with(store, config, &|| near_duplicate::all_profiles(store))
}

/// Every entity's content profile, in store order, for the content rules: asked only when one
/// of them is enabled. `lint` reads every body; a higher layer may keep them in a cache
/// (`keep::cache::profiles`).
pub type ProfileSource<'a> = &'a (dyn Fn() -> Vec<near_duplicate::Profile> + Sync);

/// `lint`, the content rules taking their profiles from `profiles`.
pub fn lint_with(store: &Store, config: &LintConfig, profiles: ProfileSource) -> Report {
    report(store, config, &store.dialect.manifest_lints(), profiles)
}

/// A pair of near-duplicates as `near_duplicate::reported` gives it: entity numbers and their
/// similarity.
pub type Pair = (u32, u32, f64);

/// What a lint pass may take from an earlier pass over the same store instead of computing it,
/// and give to the next (`keep::cache::lint_memo` keeps it beside the store's snapshot): the
/// content rules' pairs (comparing them is most of what those rules cost) and the findings of
/// the families that depend on the loaded model alone (links, graph, duplicates). The families
/// it answers only for a store whose files and link resolutions are as that pass saw them; the
/// pairs also after a change that left every profile as it was (`judged_pairs`).
pub trait LintMemo: Sync {
    /// The pairs reported at `threshold` over this very store, when they are known.
    fn pairs(&self, manifest: &manifest::ManifestLints, threshold: f64) -> Option<Vec<Pair>>;
    /// The pairs just reported at `threshold`, with every pair found and what was judged of it
    /// (`judged_pairs`) from `profiles` (the store's, in its order).
    fn keep_pairs(
        &self,
        manifest: &manifest::ManifestLints,
        threshold: f64,
        pairs: &[Pair],
        judged: &[judged_pairs::Judged],
        profiles: &[near_duplicate::Profile],
    );
    /// The link, graph and duplicate findings of this very store, when they are known.
    fn families(&self, manifest: &manifest::ManifestLints) -> Option<[Vec<Finding>; 3]>;
    /// The link, graph and duplicate findings just made.
    fn keep_families(&self, manifest: &manifest::ManifestLints, families: [&[Finding]; 3]);
    /// Called on the linting thread before any of the above: what the answers need, made
    /// there once rather than by whichever rule asks first while the others wait.
    fn prepare(&self, _manifest: &manifest::ManifestLints) {}
}

/// `lint_with`, taking from `memo` what it knows of this store (then no profile is asked for
/// and no link walked) and giving it what was computed.
pub fn lint_remembering(store: &Store, config: &LintConfig, profiles: ProfileSource, memo: &dyn LintMemo) -> Report {
    report_using(store, config, &store.dialect.manifest_lints(), profiles, Some(memo), Reach::Everything)
}

/// `lint_remembering` for the review queue, which reads only the findings on entities: the
/// catalog rules, whose findings are all on files (`Finding::on_file`), are not run (rendering
/// a stale catalog of a large store to compare it was a tenth of the inbox's lint).
pub fn lint_entities_remembering(
    store: &Store,
    config: &LintConfig,
    profiles: ProfileSource,
    memo: &dyn LintMemo,
) -> Report {
    report_using(store, config, &store.dialect.manifest_lints(), profiles, Some(memo), Reach::Entities)
}

/// Which findings a pass makes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Reach {
    Everything,
    /// All but the catalog rules' (each on a file, never on an entity).
    Entities,
}

fn report(store: &Store, config: &LintConfig, manifest: &manifest::ManifestLints, profiles: ProfileSource) -> Report {
    report_using(store, config, manifest, profiles, None, Reach::Everything)
}

pub(super) fn report_using(
    store: &Store,
    config: &LintConfig,
    manifest: &manifest::ManifestLints,
    profiles: ProfileSource,
    memo: Option<&dyn LintMemo>,
    reach: Reach,
) -> Report {
    if let Some(memo) = memo {
        memo.prepare(manifest);
    }
    // The rule families on one side, the content rules on the other: without a usable memo
    // the content rules decode or tokenise every profile while the families run.
    let (mut findings, content_findings) = rayon::join(
        || all_families_using(store, manifest, memo, reach),
        || {
            let mut out = Vec::new();
            tagged(&mut out, Origin::Content, |out| {
                content_using(store, config, profiles, memo.map(|m| (m, manifest)), out)
            });
            out
        },
    );
    findings.extend(content_findings);
    configure(store, config, &mut findings);
    ignore::partition(store, config, findings)
}

/// `all_families`, the families that depend on the model alone from `memo` when it knows them.
fn all_families_using(
    store: &Store,
    manifest: &manifest::ManifestLints,
    memo: Option<&dyn LintMemo>,
    reach: Reach,
) -> Vec<Finding> {
    let Some(memo) = memo else { return all_families(store, manifest, reach) };
    let Some([linked, graphed, duplicated]) = memo.families(manifest) else {
        let findings = all_families(store, manifest, reach);
        let of = |origin| {
            let start = findings.iter().position(|f| f.origin == origin).unwrap_or(findings.len());
            let end = findings[start..].iter().position(|f| f.origin != origin).map_or(findings.len(), |n| start + n);
            // Each family's findings are one run; a family found elsewhere too is not kept.
            let run = &findings[start..end];
            (findings.iter().filter(|f| f.origin == origin).count() == run.len()).then_some(run)
        };
        if let (Some(l), Some(g), Some(d)) = (of(Origin::Link), of(Origin::Graph), of(Origin::Duplicate)) {
            memo.keep_families(manifest, [l, g, d]);
        }
        return findings;
    };
    // The same order as `all_families`: per-file problems, store warnings, links, graph,
    // duplicates, catalogs.
    let (mut findings, catalogued) = rayon::join(
        || {
            let mut findings = over_entities(store, |i, out| entity_problems(store, i, out));
            store_warnings(store, &mut findings);
            findings
        },
        || catalog_family(store, reach),
    );
    findings.extend(linked);
    findings.extend(graphed);
    findings.extend(duplicated);
    findings.extend(catalogued);
    findings
}

/// Every rule family over the whole store, each finding tagged with its origin, before the
/// config is applied.
fn all_families(store: &Store, manifest: &manifest::ManifestLints, reach: Reach) -> Vec<Finding> {
    // Three independent groups of rules on the cores: the duplicate and catalog rules are
    // most of what `lint` spends on the main thread after loading (docs/benchmarks.md,
    // "Lint figures"). The groups are concatenated in the sequential order.
    let ((mut findings, duplicated), catalogued) = rayon::join(
        || {
            rayon::join(
                || {
                    let mut findings = over_entities(store, |i, out| entity_problems(store, i, out));
                    store_warnings(store, &mut findings);
                    let linked = over_entities(store, |i, out| links::check_entity(store, manifest, i, out));
                    let graphed = over_entities(store, |i, out| graph::check_entity(store, manifest, i, out));
                    for (mut run, origin) in [(linked, Origin::Link), (graphed, Origin::Graph)] {
                        tagged(&mut findings, origin, |out| out.append(&mut run));
                    }
                    findings
                },
                || {
                    let mut out = Vec::new();
                    tagged(&mut out, Origin::Duplicate, |out| duplicates::check(store, out));
                    out
                },
            )
        },
        || catalog_family(store, reach),
    );
    findings.extend(duplicated);
    findings.extend(catalogued);
    findings
}

/// What `each` finds on every entity, in entity order as one loop would find it, made on
/// rayon's threads in runs: one thread's loop over 100k entities was most of a lint whose memo
/// no longer held, with the other core idle (docs/benchmarks.md, "Forty-first session").
fn over_entities(store: &Store, each: impl Fn(EntityIdx, &mut Vec<Finding>) + Sync) -> Vec<Finding> {
    use rayon::prelude::*;
    const RUN: usize = 4096;
    let n = store.entities.len();
    let runs: Vec<Vec<Finding>> = (0..n.div_ceil(RUN))
        .into_par_iter()
        .map(|r| {
            let mut out = Vec::new();
            for i in r * RUN..n.min((r + 1) * RUN) {
                each(i as EntityIdx, &mut out);
            }
            out
        })
        .collect();
    let mut all = Vec::with_capacity(runs.iter().map(Vec::len).sum());
    runs.into_iter().for_each(|mut run| all.append(&mut run));
    all
}

/// The catalog rules' findings, tagged, when the pass reaches them.
fn catalog_family(store: &Store, reach: Reach) -> Vec<Finding> {
    let mut out = Vec::new();
    if reach == Reach::Everything {
        tagged(&mut out, Origin::Catalog, |out| catalogs::check(store, out));
    }
    out
}

/// The content rules, unless both are disabled: they read every body.
fn content(store: &Store, config: &LintConfig, profiles: ProfileSource, out: &mut Vec<Finding>) {
    content_using(store, config, profiles, None, out)
}

/// `content`, the pairs from `memo` (with the store's manifest rules) when it knows them.
fn content_using(
    store: &Store,
    config: &LintConfig,
    profiles: ProfileSource,
    memo: Option<(&dyn LintMemo, &manifest::ManifestLints)>,
    out: &mut Vec<Finding>,
) {
    if !config.reads_bodies() {
        return;
    }
    let threshold = config.near_duplicate_threshold.unwrap_or(near_duplicate::DEFAULT_THRESHOLD);
    let pairs = match memo.and_then(|(m, manifest)| m.pairs(manifest, threshold)) {
        Some(pairs) => pairs,
        None => {
            let compared = |a, b, s, rarity: &_| kinship::reported(store, a, b, s, rarity, threshold);
            let profiles = profiles();
            let judged = judged_pairs::judge(store, &profiles, threshold, &compared);
            let pairs = judged_pairs::reported(&judged);
            if let Some((m, manifest)) = memo {
                m.keep_pairs(manifest, threshold, &pairs, &judged, &profiles);
            }
            pairs
        }
    };
    near_duplicate::report(store, &pairs, out);
    possible_contradiction::check(store, &pairs, &config.dismissed_pairs(), out);
}

/// Run one rule family and tag what it added.
fn tagged(out: &mut Vec<Finding>, origin: Origin, run: impl FnOnce(&mut Vec<Finding>)) {
    let start = out.len();
    run(out);
    for f in &mut out[start..] {
        f.origin = origin;
    }
}

/// The store-local config on freshly computed findings: disabled rules dropped, severities
/// overridden, then the `legacy-trigger` fixes attached (they read the files concerned).
fn configure(store: &Store, config: &LintConfig, findings: &mut Vec<Finding>) {
    findings.retain(|f| !config.disabled.contains(f.rule));
    for f in findings.iter_mut() {
        if let Some(&s) = config.severity.get(f.rule) {
            f.severity = s;
        }
    }
    trigger_fix::attach(store, findings);
}

/// The report's order: by file (store-wide findings first), position, rule, then message so
/// that the order is total (incremental and full passes agree finding for finding).
fn sort(findings: &mut [Finding]) {
    use rayon::slice::ParallelSliceMut;
    // Stable, as `sort_by`, on every core: at 100k entities it was a single thread's 30 ms of
    // the inbox's lint, the other core idle.
    findings.par_sort_by(|a, b| {
        (a.path.is_some(), &a.path, a.line, a.col, a.rule, &a.message).cmp(&(
            b.path.is_some(),
            &b.path,
            b.line,
            b.col,
            b.rule,
            &b.message,
        ))
    });
}

/// What the loader and the dialect found while reading one entity.
fn entity_problems(store: &Store, i: EntityIdx, out: &mut Vec<Finding>) {
    for p in &store.entity(i).problems {
        let rule = rules::lookup(p.rule).map(|r| r.id).unwrap_or(rules::STORE_WARNING);
        out.push(Finding::on_entity(store, i, rule, p.line, p.col, p.message.clone()).with_severity(p.severity));
    }
}

/// Store state that is a symbolic link — the log, folio's state folder — which every write
/// refuses (`write_gate`): said before anyone tries one.
fn linked_state(store: &Store) -> Vec<crate::store::dialect::StoreWarning> {
    use crate::store::write::{audit, fs_ops, state::State};
    let log = audit::log_path(&store.root, store.kind());
    let state = State::for_store(&store.root, store.kind()).dir;
    [("the store's log", log), ("folio's state folder", state)]
        .into_iter()
        .filter_map(|(what, path)| {
            let rel = crate::store::model::relpath::from_root(&store.root, &path);
            let link = fs_ops::link_on_the_way(&store.root, std::path::Path::new(&rel))?;
            let to = std::fs::read_link(&link).map(|t| format!(" (to {})", t.display())).unwrap_or_default();
            Some(crate::store::dialect::StoreWarning {
                code: "linked-state".into(),
                message: format!(
                    "{what} {} is or lies in a symbolic link{to}; folio refuses every write through it",
                    link.display()
                ),
                path: crate::store::model::relpath::from_path(link.strip_prefix(&store.root).unwrap_or(&link)),
            })
        })
        .collect()
}

/// Warnings about the store as a whole; codes that are not rule ids keep their code in the text.
fn store_warnings(store: &Store, out: &mut Vec<Finding>) {
    // The format's own warnings, folders the walk could not read (`unreadable`), linked state.
    let linked = linked_state(store);
    for w in store.format_warnings().into_iter().chain(store.walk_warnings.iter().cloned()).chain(linked) {
        let (rule, message) = match rules::lookup(&w.code) {
            Some(r) => (r.id, w.message),
            None => (rules::STORE_WARNING, format!("{}: {}", w.code, w.message)),
        };
        out.push(Finding {
            rule,
            severity: default_severity(rule),
            entity: None,
            path: w.path.map(Into::into),
            line: 0,
            col: 0,
            message: message.into(),
            fix: None,
            origin: Origin::Store,
            other: None,
        });
    }
}

/// Counts for the summary line and the JSON `summary`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    pub files: usize,
    pub fixable: usize,
    pub by_rule: BTreeMap<&'static str, usize>,
}

impl Report {
    /// Keep only findings of the given rules (all when empty) at or above `min` severity.
    pub fn filter(&mut self, rules: &[&str], min: Severity) {
        let keep = |f: &Finding| f.severity >= min && (rules.is_empty() || rules.contains(&f.rule));
        self.findings.retain(keep);
        self.suppressed.retain(|s| keep(&s.finding));
    }

    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }

    pub fn summary(&self) -> Summary {
        let mut s = Summary::default();
        // Findings come sorted by file: their files are counted as runs, without hashing each
        // path (a report built otherwise is counted through a set).
        let by_file = self.findings.is_sorted_by(|a, b| a.path <= b.path);
        let mut files = std::collections::HashSet::new();
        let mut last: Option<Option<&str>> = None;
        for f in &self.findings {
            match f.severity {
                Severity::Error => s.errors += 1,
                Severity::Warn => s.warnings += 1,
                Severity::Info => s.infos += 1,
            }
            if f.fix.is_some() {
                s.fixable += 1;
            }
            *s.by_rule.entry(f.rule).or_insert(0) += 1;
            let path = f.path.as_deref();
            if !by_file {
                files.insert(path);
            } else if last != Some(path) {
                s.files += usize::from(path.is_some());
                last = Some(path);
            }
        }
        s.files += files.into_iter().flatten().count();
        s
    }

    /// The fixes of every finding that has one, merged per file (what `--fix` would apply).
    pub fn fixes(&self) -> Vec<Fix> {
        let all: Vec<&Fix> = self.findings.iter().filter_map(|f| f.fix.as_deref()).collect();
        fix::merge_per_file(&all)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::dialect::{self, Dialect, DialectKind, FileRole, SourceFile, StoreWarning};
    use crate::store::model::entity::{Entity, rule};

    /// An AIP-10-like dialect with store warnings and a manifest that makes broken refs errors
    /// and orphans of kind `concept` warnings.
    struct Fake;

    impl Dialect for Fake {
        fn kind(&self) -> DialectKind {
            dialect::aip10::KIND
        }
        fn role(&self, _rel: &str) -> FileRole {
            FileRole::Entity
        }
        fn parse(&self, file: &SourceFile) -> Vec<Entity> {
            let mut e = dialect::parse_markdown(file, dialect::Grammar::Yaml).entity;
            e.kind = crate::store::read::frontmatter::get_str(&dialect::yaml_fields(file.text), "kind").map(Into::into);
            vec![e]
        }
        fn warnings(&self) -> Vec<StoreWarning> {
            vec![
                StoreWarning {
                    code: "extends-cycle".into(),
                    message: "a → b → a".into(),
                    path: Some("KNOWLEDGE.md".into()),
                },
                StoreWarning { code: "manifest-unreadable".into(), message: "bad JSON".into(), path: None },
            ]
        }
        fn manifest_lints(&self) -> manifest::ManifestLints {
            let merged = serde_json::from_value(serde_json::json!({"lints": [
                {"id": "r", "kind": "broken-ref", "appliesTo": "*", "severity": "error"},
                {"id": "o", "kind": "orphan", "appliesTo": "Concept", "severity": "warn"}
            ]}))
            .unwrap();
            crate::store::dialect::aip10::lints::from_manifest(&merged)
        }
    }

    #[test]
    fn store_warnings_and_manifest_lints_shape_the_findings() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "---\nkind: concept\n---\nSee [gone](gone.md).\n").unwrap();
        std::fs::write(dir.path().join("b.md"), "---\nkind: entity\n---\nSee [a](a.md).\n").unwrap();
        let mut store = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
        store.dialect = Box::new(Fake);
        let report = lint(&store, &LintConfig::default());
        let got: Vec<(&str, Severity, Option<&str>)> =
            report.findings.iter().map(|f| (f.rule, f.severity, f.path.as_deref())).collect();
        assert_eq!(
            got,
            [
                (rules::STORE_WARNING, Severity::Warn, None),
                (
                    crate::store::dialect::aip10::spec::EXTENDS_CYCLE,
                    Severity::Warn,
                    Some(crate::store::dialect::aip10::WORKSPACE)
                ),
                (rule::BROKEN_LINK, Severity::Error, Some("a.md")),
                // `b` is an entity, not a concept: the manifest's orphan lint does not apply.
                (rule::ORPHAN, Severity::Info, Some("b.md")),
            ]
        );
        assert_eq!(report.findings[0].message, "manifest-unreadable: bad JSON");
        assert!(report.has_errors());
    }

    /// The files named by findings are counted alike whether the findings come sorted by file
    /// (as a pass gives them: counted as runs) or not (counted through a set).
    #[test]
    fn a_summary_counts_each_file_once_in_any_order() {
        let on = |path: Option<&str>, rule| {
            let mut f = Finding::on_file(path.unwrap_or(""), rule, 1, String::new());
            f.path = path.map(Into::into);
            f
        };
        let findings = vec![
            on(None, rules::STORE_WARNING),
            on(None, rules::STORE_WARNING),
            on(Some("a.md"), rule::BROKEN_LINK),
            on(Some("a.md"), rule::ORPHAN),
            on(Some("b.md"), rule::ORPHAN),
            on(Some("c/d.md"), rule::BROKEN_LINK),
        ];
        let sorted = Report { findings: findings.clone(), suppressed: Vec::new() };
        let mut shuffled = findings;
        shuffled.swap(0, 3);
        shuffled.swap(1, 4);
        let shuffled = Report { findings: shuffled, suppressed: Vec::new() };
        for report in [sorted, shuffled] {
            let s = report.summary();
            assert_eq!((s.files, s.warnings + s.errors + s.infos), (3, 6), "{:?}", report.findings);
            assert_eq!(s.by_rule.get(rule::ORPHAN), Some(&2));
        }
    }
}

/// The review queue's lint (`lint_entities_remembering`) against the whole one.
#[cfg(test)]
mod entities_only {
    use super::*;
    use crate::store::keep::cache::lint_memo::Memo;

    /// On every fixture store (stale and missing catalogs, a reserved name holding a concept
    /// among them), the queue's lint makes every finding on an entity the whole lint makes, in
    /// the same order, and none of the catalog rules'; the queue built from either is the same.
    #[test]
    fn the_queues_lint_leaves_out_only_the_findings_on_files() {
        let mut catalogued = 0;
        for (path, store) in crate::store::fixture_stores::all() {
            let config = LintConfig::load(&store.root, store.kind()).unwrap_or_default();
            let profiles = || near_duplicate::all_profiles(&store);
            let whole = lint_remembering(&store, &config, &profiles, &Memo::new(None, &store));
            let queues = lint_entities_remembering(&store, &config, &profiles, &Memo::new(None, &store));
            let on_entities =
                |r: &Report| r.findings.iter().filter(|f| f.entity.is_some()).cloned().collect::<Vec<_>>();
            assert_eq!(on_entities(&queues), on_entities(&whole), "{}", path.display());
            assert!(queues.findings.iter().all(|f| f.origin != Origin::Catalog), "{}", path.display());
            assert!(whole.findings.iter().filter(|f| f.origin == Origin::Catalog).all(|f| f.entity.is_none()));
            catalogued += whole.findings.iter().filter(|f| f.origin == Origin::Catalog).count();
            let items = |r: &Report| format!("{:?}", crate::store::review::queue::build_with(&store, r));
            assert_eq!(items(&queues), items(&whole), "{}", path.display());
        }
        assert!(catalogued >= 3, "the fixtures hold catalog findings to leave out ({catalogued})");
    }
}
