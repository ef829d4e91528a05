//! The store-local lint configuration: `<root>/.folio/config.toml` (for evolve stores
//! `.evolve/folio/config.toml`, outside the entities bundle), shared with the store through git.
//!
//! ```toml
//! [lint]
//! disable = ["orphan", "duplicate-title"]
//!
//! [lint.severity]
//! broken-link = "error"
//! stale = "info"
//!
//! # One finding-rule on one entity, ignored on purpose (`i` in the lint panel writes these).
//! [[ignore]]
//! rule = "orphan"
//! entity = "concepts/entry-point"
//! reason = "the bundle's entry point: nothing is meant to link here"
//! by = "human:ann"
//! at = "2026-11-23T08:00:00Z"
//! ```
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::rules;
use crate::store::dialect::DialectKind;
use crate::store::model::entity::Severity;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct LintConfig {
    pub disabled: BTreeSet<&'static str>,
    pub severity: BTreeMap<&'static str, Severity>,
    /// `[[ignore]]` entries, in file order.
    pub ignores: Vec<Ignore>,
    /// `[lint.near-duplicate] threshold`: the similarity (0 to 1) from which two texts are
    /// near-duplicates; `None`: the rule's default.
    pub near_duplicate_threshold: Option<f64>,
}

impl LintConfig {
    /// The entity id pairs whose possible contradiction a person dismissed, each pair sorted.
    pub fn dismissed_pairs(&self) -> Vec<(&str, &str)> {
        let mut pairs: Vec<(&str, &str)> = self
            .ignores
            .iter()
            .filter_map(|ig| {
                let other = ig.other.as_deref()?;
                let (a, b) = (ig.entity.as_str(), other);
                Some(if a <= b { (a, b) } else { (b, a) })
            })
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }
}

/// Findings of `rule` on the entity `entity` (its id) are ignored, for `reason`.
#[derive(Debug, Clone, PartialEq)]
pub struct Ignore {
    pub rule: &'static str,
    pub entity: String,
    /// A dismissed `possible-contradiction`: only the pair with this entity (its id) is
    /// ignored, not the rule's other findings on `entity`.
    pub other: Option<String>,
    pub reason: String,
    pub by: Option<String>,
    pub at: Option<String>,
    /// 1-based line of the entry's `[[ignore]]` header in the config file.
    pub line: u32,
}

impl LintConfig {
    /// The same config apart from its ignores: findings need not be recomputed, only sorted
    /// into shown and ignored again.
    pub fn same_rules(&self, other: &LintConfig) -> bool {
        self.dismissed_pairs() == other.dismissed_pairs()
            && self.disabled == other.disabled
            && self.severity == other.severity
            && self.near_duplicate_threshold == other.near_duplicate_threshold
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    lint: Section,
    #[serde(default)]
    ignore: Vec<toml::Spanned<IgnoreEntry>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IgnoreEntry {
    rule: String,
    entity: String,
    other: Option<String>,
    reason: String,
    by: Option<String>,
    at: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Section {
    #[serde(default)]
    disable: Vec<String>,
    #[serde(default)]
    severity: BTreeMap<String, String>,
    #[serde(default, rename = "near-duplicate")]
    near_duplicate: Option<NearDuplicate>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NearDuplicate {
    threshold: f64,
}

/// Where folio keeps its own state for a store (never inside what the format's readers scan).
pub fn folio_dir(root: &Path, kind: DialectKind) -> PathBuf {
    kind.format().state_dir(root)
}

pub fn config_path(root: &Path, kind: DialectKind) -> PathBuf {
    folio_dir(root, kind).join("config.toml")
}

impl LintConfig {
    /// Whether a content rule is on: those read every body.
    pub fn reads_bodies(&self) -> bool {
        use super::{near_duplicate, possible_contradiction};
        !(self.disabled.contains(near_duplicate::RULE) && self.disabled.contains(possible_contradiction::RULE))
    }

    /// This config for a pass that reports only `rules` (every rule when empty) at `min` or
    /// above: a content rule none of whose findings could be reported is turned off, so that
    /// `--rule broken-link` or `--severity error` neither tokenises nor compares the bodies.
    pub fn for_report(mut self, rules: &[&str], min: Severity) -> LintConfig {
        use super::{near_duplicate, possible_contradiction};
        for rule in [near_duplicate::RULE, possible_contradiction::RULE] {
            // Exact copies are warnings whatever the rule's default (`near_duplicate::check`).
            let highest = self.severity.get(rule).copied().unwrap_or(match rule {
                near_duplicate::RULE => Severity::Warn,
                _ => super::default_severity(rule),
            });
            if !(rules.is_empty() || rules.contains(&rule)) || highest < min {
                self.disabled.insert(rule);
            }
        }
        self
    }

    /// The store's config; the defaults when there is no config file.
    pub fn load(root: &Path, kind: DialectKind) -> Result<LintConfig, ConfigError> {
        let path = config_path(root, kind);
        let shown = path.display().to_string();
        match std::fs::read_to_string(&path) {
            Ok(text) => LintConfig::parse(&text).map_err(|message| ConfigError::Invalid { path: shown, message }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(LintConfig::default()),
            Err(source) => Err(ConfigError::Io { path: shown, source }),
        }
    }

    /// Parse the TOML text; unknown rule ids, severities and keys are errors (a typo must not
    /// silently leave a rule on).
    pub fn parse(text: &str) -> Result<LintConfig, String> {
        let file: File = toml::from_str(text).map_err(|e| e.message().to_string())?;
        let mut config = LintConfig::default();
        for id in &file.lint.disable {
            config.disabled.insert(known(id)?);
        }
        for (id, sev) in &file.lint.severity {
            let severity = Severity::from_name(sev)
                .ok_or_else(|| format!("[lint.severity] {id} = \"{sev}\": expected error, warn or info"))?;
            config.severity.insert(known(id)?, severity);
        }
        if let Some(nd) = &file.lint.near_duplicate {
            if !(nd.threshold > 0.0 && nd.threshold <= 1.0) {
                return Err(format!(
                    "[lint.near-duplicate] threshold = {}: expected a number above 0, at most 1",
                    nd.threshold
                ));
            }
            config.near_duplicate_threshold = Some(nd.threshold);
        }
        for entry in &file.ignore {
            let line = text[..entry.span().start.min(text.len())].matches('\n').count() as u32 + 1;
            let e = entry.get_ref();
            if e.entity.trim().is_empty() || e.reason.trim().is_empty() {
                return Err(format!("[[ignore]] on line {line}: `entity` and `reason` must not be empty"));
            }
            config.ignores.push(Ignore {
                rule: known(&e.rule).map_err(|m| format!("[[ignore]] on line {line}: {m}"))?,
                entity: e.entity.clone(),
                other: e.other.clone().filter(|o| !o.trim().is_empty()),
                reason: e.reason.clone(),
                by: e.by.clone(),
                at: e.at.clone(),
                line,
            });
        }
        Ok(config)
    }
}

fn known(id: &str) -> Result<&'static str, String> {
    rules::lookup(id).map(|r| r.id).ok_or_else(|| format!("unknown lint rule `{id}` (known: {})", rules::id_list()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_disable_and_severity() {
        let c =
            LintConfig::parse("[lint]\ndisable = [\"orphan\"]\n[lint.severity]\nbroken-link = \"error\"\n").unwrap();
        assert_eq!(c.disabled.iter().copied().collect::<Vec<_>>(), ["orphan"]);
        assert_eq!(c.severity.get("broken-link"), Some(&Severity::Error));
        assert_eq!(LintConfig::parse("").unwrap(), LintConfig::default());
    }

    /// A content rule stays on exactly when one of its findings could be reported: asked for
    /// by `--rule` (or no rule named) and able to reach `--severity` (exact copies warn; the
    /// config may raise either rule).
    #[test]
    fn a_pass_that_cannot_report_a_content_rule_turns_it_off() {
        use crate::store::lint::{near_duplicate::RULE as DUP, possible_contradiction::RULE as CONTRA};
        let on = |c: &LintConfig, rules: &[&str], min| {
            let c = c.clone().for_report(rules, min);
            [DUP, CONTRA].map(|r| !c.disabled.contains(r))
        };
        let plain = LintConfig::default();
        assert_eq!(on(&plain, &[], Severity::Info), [true, true]);
        assert_eq!(on(&plain, &["broken-link"], Severity::Info), [false, false]);
        assert_eq!(on(&plain, &[CONTRA], Severity::Info), [false, true]);
        assert!(plain.clone().for_report(&[CONTRA], Severity::Info).reads_bodies(), "contradictions need the pairs");
        assert_eq!(on(&plain, &[], Severity::Warn), [true, super::super::default_severity(CONTRA) >= Severity::Warn]);
        assert_eq!(on(&plain, &[], Severity::Error), [false, false]);
        assert!(!plain.clone().for_report(&[], Severity::Error).reads_bodies());
        let raised = LintConfig::parse("[lint.severity]\nnear-duplicate = \"error\"\n").unwrap();
        assert_eq!(on(&raised, &[], Severity::Error), [true, false]);
        let lowered = LintConfig::parse("[lint.severity]\nnear-duplicate = \"info\"\n").unwrap();
        assert_eq!(on(&lowered, &[DUP], Severity::Warn), [false, false]);
        let disabled = LintConfig::parse("[lint]\ndisable = [\"near-duplicate\"]\n").unwrap();
        assert_eq!(on(&disabled, &[], Severity::Info), [false, true], "a disabled rule stays off");
    }

    #[test]
    fn near_duplicate_threshold_is_a_share() {
        let c = LintConfig::parse("[lint.near-duplicate]\nthreshold = 0.7\n").unwrap();
        assert_eq!(c.near_duplicate_threshold, Some(0.7));
        assert!(!c.same_rules(&LintConfig::default()));
        assert!(LintConfig::parse("[lint.near-duplicate]\nthreshold = 1.5\n").unwrap_err().contains("at most 1"));
        assert!(LintConfig::parse("[lint.near-duplicate]\nthreshhold = 0.5\n").is_err());
    }

    #[test]
    fn typos_are_errors() {
        assert!(
            LintConfig::parse("[lint]\ndisable = [\"orphans\"]\n").unwrap_err().contains("unknown lint rule `orphans`")
        );
        assert!(LintConfig::parse("[lint.severity]\norphan = \"loud\"\n").unwrap_err().contains("expected error"));
        assert!(LintConfig::parse("[lint]\ndisabled = []\n").is_err());
        assert!(LintConfig::parse("[lint\n").is_err());
    }

    #[test]
    fn parses_ignores_with_their_lines() {
        let text = "[lint]\ndisable = []\n\n[[ignore]]\nrule = \"orphan\"\nentity = \"a/b\"\nreason = \"entry point\"\n\n[[ignore]]\nrule = \"broken-link\"\nentity = \"c\"\nreason = \"external mirror\"\nby = \"human:ann\"\n";
        let c = LintConfig::parse(text).unwrap();
        assert_eq!(c.ignores.len(), 2);
        assert_eq!((c.ignores[0].rule, c.ignores[0].entity.as_str(), c.ignores[0].line), ("orphan", "a/b", 4));
        assert_eq!(
            (c.ignores[1].rule, c.ignores[1].by.as_deref(), c.ignores[1].line),
            ("broken-link", Some("human:ann"), 9)
        );
        assert!(c.same_rules(&LintConfig::default()));
        let bad = LintConfig::parse("[[ignore]]\nrule = \"orphans\"\nentity = \"a\"\nreason = \"r\"\n").unwrap_err();
        assert!(bad.contains("line 1") && bad.contains("orphans"), "{bad}");
        assert!(LintConfig::parse("[[ignore]]\nrule = \"orphan\"\nentity = \"a\"\nreason = \" \"\n").is_err());
        assert!(LintConfig::parse("[[ignore]]\nrule = \"orphan\"\nentity = \"a\"\n").is_err(), "a reason is required");
    }

    #[test]
    fn evolve_keeps_its_state_beside_the_bundle() {
        assert_eq!(
            folio_dir(Path::new("/p/.evolve/entities"), crate::store::dialect::evolve::KIND),
            Path::new("/p/.evolve/folio")
        );
        assert_eq!(folio_dir(Path::new("/p/wiki"), crate::store::dialect::okf::KIND), Path::new("/p/wiki/.folio"));
    }

    #[test]
    fn missing_file_is_the_default_and_a_bad_one_names_its_path() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(LintConfig::load(dir.path(), crate::store::dialect::okf::KIND).unwrap(), LintConfig::default());
        std::fs::create_dir(dir.path().join(".folio")).unwrap();
        std::fs::write(dir.path().join(".folio/config.toml"), "[lint]\ndisable = [\"nope\"]\n").unwrap();
        let e = LintConfig::load(dir.path(), crate::store::dialect::okf::KIND).unwrap_err().to_string();
        assert!(e.contains(".folio/config.toml") && e.contains("nope"), "{e}");
    }
}
