//! The rule registry: every lint rule id with its default severity, its one-line explanation
//! (`folio lint --explain ID`) and whether folio can fix it safely.
use crate::store::model::entity::{Severity, rule};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub id: &'static str,
    pub severity: Severity,
    pub explain: &'static str,
    /// Whether `--fix` has a safe, content-preserving fix for (some of) its findings.
    pub fixable: bool,
}

/// A warning a dialect raised about the store as a whole whose code is not a rule of its own
/// (manifest problems and the like).
pub const STORE_WARNING: &str = "store-warning";

/// An `[[ignore]]` entry of the folio config whose entity no longer exists.
pub const STALE_IGNORE: &str = "stale-ignore";

/// A rule (also for the formats' own rules, in their specs).
pub const fn r(id: &'static str, severity: Severity, explain: &'static str, fixable: bool) -> Rule {
    Rule { id, severity, explain, fixable }
}

use Severity::{Error, Info, Warn};

/// The rules every format shares, in the order `--explain` lists them; each format's own rules
/// (its spec's `rules`) follow them in `all`.
pub const RULES: &[Rule] = &[
    r(
        rule::INVALID_FRONTMATTER,
        Error,
        "A block starts on line 1 with `---` but is unterminated, does not parse, or is not a mapping.",
        false,
    ),
    r(rule::NON_UTF8, Error, "The file is not valid UTF-8; it is shown with replacement characters.", false),
    r(rule::TOO_LARGE, Warn, "The file is larger than folio's read limit; only its first part was read.", false),
    r(rule::BINARY, Warn, "The file holds NUL bytes (binary content) and was not parsed as markdown.", false),
    r(rule::UNREADABLE, Error, "The file could not be read (permissions, vanished, symlink loop).", false),
    r(
        rule::CONTROL_CHARS,
        Error,
        "Terminal control characters, escape sequences, bidi overrides or zero-width characters: content that can hide text from a reviewer or attack a terminal.",
        false,
    ),
    r(rule::MISSING_TYPE, Error, "An OKF/evolve concept without a non-empty `type`.", false),
    r(
        rule::MISSING_DESCRIPTION,
        Warn,
        "An OKF/evolve concept with neither `description` nor the legacy `trigger`.",
        false,
    ),
    r(
        rule::LEGACY_TRIGGER,
        Warn,
        "The concept has the legacy `trigger` key but no `description`; the fix renames the key.",
        true,
    ),
    r(
        rule::INVALID_FIELD,
        Error,
        "A known field with a wrong type or value: confidence outside 0..1, unknown OKF status, a timestamp that is not ISO 8601, an enum value the format does not define.",
        false,
    ),
    r(
        rule::WIKILINK_SYNTAX,
        Warn,
        "A `[[wikilink]]` in an OKF bundle, which uses markdown links only; the fix rewrites it to `[name](/path.md)` when it resolves.",
        true,
    ),
    r(
        rule::BROKEN_LINK,
        Warn,
        "A markdown link or wikilink whose target does not resolve inside the store (external URLs, mailto: and #anchors are not checked).",
        false,
    ),
    r(
        rule::LINK_ESCAPES_ROOT,
        Error,
        "A link (or a symlinked file) whose resolved path leaves the store root; folio never follows it.",
        false,
    ),
    r(rule::ORPHAN, Info, "No other entity links to this one (catalogs, logs and self-links do not count).", false),
    r(
        rule::DUPLICATE_ID,
        Error,
        "Two files map to one concept id or slug (ids that differ only by case included).",
        false,
    ),
    r(
        rule::DUPLICATE_TITLE,
        Warn,
        "Two entities whose titles are equal after case-folding and collapsing punctuation and whitespace: merge candidates.",
        false,
    ),
    r(
        rule::RESERVED_NAME,
        Error,
        "A file with a reserved catalog or log name (`index.md`/`log.md`, `_index.md`/`_log.md`) holds concept frontmatter: regenerating catalogs would destroy it.",
        false,
    ),
    r(
        rule::RESERVED_FILE,
        Error,
        "A reserved file that breaks the structure its format gives it: an OKF `log.md` with frontmatter, a date heading that is not `## YYYY-MM-DD`, or date groups not newest first (OKF v0.2 §9, §11: the bundle is not conformant).",
        false,
    ),
    r(
        rule::CATALOG_STALE,
        Warn,
        "A catalog file is missing or differs from what `folio index` would write; the fix regenerates it.",
        true,
    ),
    r(
        rule::STALE,
        Warn,
        "The entity is past its freshness date (`stale_after`, the manifest's max-age, evolve's retention flag).",
        false,
    ),
    r(
        rule::CONTRADICTION,
        Warn,
        "The entity declares an unresolved contradiction (`contradicts`) with another entity.",
        false,
    ),
    r(rule::UNSOURCED, Warn, "An AIP-10 page without `sources` (kinds the spec exempts excepted).", false),
    r(rule::LOW_CONFIDENCE, Warn, "The entity's confidence is below the manifest's min-confidence lint.", false),
    r(
        super::near_duplicate::RULE,
        Info,
        "Entities whose texts say nearly the same thing (weighted overlap of their rarer words at or above `[lint.near-duplicate] threshold`, 0.2 by default); exact and near-exact copies are warnings. Merge one into the other or tell them apart.",
        false,
    ),
    r(
        super::possible_contradiction::RULE,
        Info,
        "Two near-duplicates that disagree on a fact: installed against not installed, use against never use, two numbers for one named thing. Both sentences are shown; a person decides.",
        false,
    ),
    r(
        STORE_WARNING,
        Warn,
        "A problem with the store as a whole reported by its format (manifest, configuration).",
        false,
    ),
    r(
        STALE_IGNORE,
        Warn,
        "An `[[ignore]]` entry in the store's folio config names an entity that no longer exists: remove it, or point it at the entity's new id.",
        false,
    ),
];

/// Every rule: the shared ones, then each format's own in the registry's order.
pub fn all() -> impl Iterator<Item = &'static Rule> {
    RULES.iter().chain(crate::store::dialect::formats().flat_map(|f| f.spec().rules.iter()))
}

/// The rule with this id.
pub fn lookup(id: &str) -> Option<&'static Rule> {
    all().find(|r| r.id == id)
}

/// Every rule id, comma-separated (for error messages).
pub fn id_list() -> String {
    all().map(|r| r.id).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_id_is_registered_once() {
        let ids = [
            rule::INVALID_FRONTMATTER,
            rule::NON_UTF8,
            rule::TOO_LARGE,
            rule::BINARY,
            rule::UNREADABLE,
            rule::LINK_ESCAPES_ROOT,
            rule::CONTROL_CHARS,
            rule::MISSING_TYPE,
            rule::MISSING_DESCRIPTION,
            rule::LEGACY_TRIGGER,
            rule::INVALID_FIELD,
            rule::STALE,
            rule::UNSOURCED,
            rule::LOW_CONFIDENCE,
            rule::WIKILINK_SYNTAX,
            rule::BROKEN_LINK,
            rule::ORPHAN,
            rule::DUPLICATE_ID,
            rule::DUPLICATE_TITLE,
            rule::RESERVED_NAME,
            rule::RESERVED_FILE,
            rule::CATALOG_STALE,
            rule::CONTRADICTION,
        ];
        for id in ids {
            assert_eq!(RULES.iter().filter(|r| r.id == id).count(), 1, "{id}");
        }
        assert_eq!(RULES.len(), ids.len() + 4, "plus store-warning, stale-ignore and the two content rules");
        let every: Vec<&str> = all().map(|r| r.id).collect();
        for id in &every {
            assert_eq!(every.iter().filter(|i| *i == id).count(), 1, "{id} is registered twice");
        }
        let aip10 = crate::store::dialect::aip10::spec::EXTENDS_CYCLE;
        assert_eq!(lookup(aip10).map(|r| r.id), Some(aip10), "a format's own rule is found by its id");
        assert!(lookup("no-such-rule").is_none());
        assert_eq!(lookup(rule::ORPHAN).unwrap().severity, Severity::Info);
    }

    #[test]
    fn only_the_safe_fixes_are_marked_fixable() {
        let fixable: Vec<&str> = all().filter(|r| r.fixable).map(|r| r.id).collect();
        assert_eq!(fixable, [rule::LEGACY_TRIGGER, rule::WIKILINK_SYNTAX, rule::CATALOG_STALE]);
    }
}
