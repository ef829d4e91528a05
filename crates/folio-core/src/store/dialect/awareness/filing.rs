//! Where approving a promotion candidate files it: the long-term memory's curated sections
//! (the framework's `CURATED_SECTIONS`, in the file's order) and the section folio infers from
//! the framework's own suggestion or from the candidate's words — so `a` `y` decides a plain
//! case, and the confirm dialog still offers every section (docs/review.md, "Deciding").
use super::entry_key::normalize_search_text;
use super::long_term::CURATED;
use super::review::{entry_text, is_entry};
use crate::store::Store;
use crate::store::model::entity::EntityIdx;
use crate::store::review::filing::FilingChoice;

/// The framework's `--kind` word for a curated section.
fn kind_of(section: &str) -> Option<&'static str> {
    match section {
        "Preferences" => Some("preference"),
        "Patterns" => Some("pattern"),
        "Project Conventions" => Some("project"),
        "Review Guidance" => Some("review"),
        _ => None,
    }
}

/// The curated sections of the long-term file at `path`: those holding entries in the file's
/// order, then the rest in the framework's (a promotion creates a missing one at the end).
pub fn choices(store: &Store, path: &str) -> Vec<FilingChoice> {
    let mut sections: Vec<&str> = Vec::new();
    for e in store.entities.iter().filter(|e| e.path == path && is_entry(e)) {
        let Some(section) = e.kind.as_deref().and_then(|k| CURATED.iter().find(|c| **c == k)) else { continue };
        if !sections.contains(section) {
            sections.push(section);
        }
    }
    sections.extend(CURATED.iter().filter(|c| !sections.contains(*c)).collect::<Vec<_>>());
    sections
        .into_iter()
        .filter_map(|s| kind_of(s).map(|k| FilingChoice { kind: k.to_string(), section: s.to_string() }))
        .collect()
}

/// The kind a candidate is most likely filed as, and why; None when nothing says.
/// - The framework's own suggestion: `memory review` suggests a candidate repeated at least
///   twice as a `pattern` (tests/corpora/awareness/docs/cli.md, "memory review").
/// - The candidate's words: a preference says "prefer" (its `memory promote --kind preference`
///   example); review guidance tells a reviewer what to flag.
pub fn infer(store: &Store, idx: EntityIdx) -> Option<(&'static str, String)> {
    let e = store.entity(idx);
    let text = entry_text(store, idx);
    let same = normalize_search_text(&text);
    let repeated = store.entities.iter().enumerate().any(|(j, other)| {
        j as EntityIdx != idx
            && other.path == e.path
            && other.status.as_deref() == Some("candidate")
            && normalize_search_text(&entry_text(store, j as EntityIdx)) == same
    });
    if repeated {
        return Some(("pattern", "a repeated candidate, which the framework's `memory review` suggests as a pattern".into()));
    }
    from_words(&text)
}

/// What a candidate's own words say it is: a preference ("prefer …") or review guidance.
fn from_words(text: &str) -> Option<(&'static str, String)> {
    let lower = text.trim().to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let first = words.first().copied().unwrap_or_default();
    if matches!(first, "prefer" | "prefers") || words.windows(2).any(|w| w == ["always", "prefer"]) {
        return Some(("preference", "it states a preference (\"prefer …\")".into()));
    }
    if matches!(first, "flag" | "reviewers") || lower.starts_with("when reviewing") || lower.starts_with("in review") {
        return Some(("review", "it tells a reviewer what to look for".into()));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::read::detect;

    #[test]
    fn the_section_is_inferred_from_repetition_or_the_words_and_every_section_offered() {
        let home = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/awareness-home"));
        let found = detect::detect(home);
        let store = Store::load(&found.root, found.kind, found.reason);
        let candidate = |words: &str| {
            let at = store.entities.iter().position(|e| {
                e.status.as_deref() == Some("candidate") && e.title.contains(words)
            });
            at.unwrap_or_else(|| panic!("no candidate says {words:?}")) as EntityIdx
        };
        let restic = candidate("restic snapshot");
        assert_eq!(infer(&store, restic).map(|(k, _)| k), Some("pattern"), "repeated: the framework suggests a pattern");
        assert_eq!(from_words("Prefer pnpm over npm in the web projects").map(|(k, _)| k), Some("preference"));
        assert_eq!(from_words("We always prefer rebase").map(|(k, _)| k), Some("preference"));
        assert_eq!(from_words("Flag any business code that connects as root").map(|(k, _)| k), Some("review"));
        assert_eq!(from_words("Preferably run it twice"), None, "a word, not a prefix");
        assert_eq!(infer(&store, candidate("Grafana dashboards")), None, "nothing says: folio asks");
        let sections: Vec<String> =
            choices(&store, &store.entity(restic).path).into_iter().map(|c| format!("{} {}", c.kind, c.section)).collect();
        assert_eq!(
            sections,
            ["preference Preferences", "pattern Patterns", "project Project Conventions", "review Review Guidance"]
        );
    }
}
