//! Link fragments → the heading or block they name: `[[page#Some Heading]]`,
//! `[text](page.md#some-heading)`, `[[page#Top#Nested]]` and block references `[[page#^id]]`.
//! The layout records where each heading and block id lands; this module says which one a
//! fragment means, as Obsidian and GitHub read them.

/// A heading or block id and the laid-out row it starts on.
#[derive(Debug, Clone, PartialEq)]
pub struct Anchor {
    /// The heading's text, or the block id with its caret (`^quote-1`).
    pub name: String,
    pub row: usize,
}

/// A paragraph's trailing Obsidian block id (`… text ^quote-1`): the text without it, and the id.
pub fn split_block_id(text: &str) -> Option<(&str, &str)> {
    let trimmed = text.trim_end();
    let at = trimmed.rfind('^')?;
    let id = &trimmed[at + 1..];
    let before = &trimmed[..at];
    let valid = !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    (valid && (before.is_empty() || before.ends_with([' ', '\t']))).then(|| (before.trim_end(), &trimmed[at..]))
}

/// The row of the anchor `fragment` names (the part after `#`, percent-encoded or not).
/// Obsidian's nested form `Top#Nested` names its last heading; headings match by their text
/// (case and spacing aside) or by their GitHub-style slug; the first of equal headings wins.
pub fn find(anchors: &[Anchor], fragment: &str) -> Option<usize> {
    let fragment = folio_core::store::read::links::percent_decode(fragment);
    let wanted = fragment.rsplit('#').next().unwrap_or("").trim();
    if wanted.is_empty() {
        return None;
    }
    if wanted.starts_with('^') {
        return anchors.iter().find(|a| a.name == wanted).map(|a| a.row);
    }
    anchors.iter().filter(|a| !a.name.starts_with('^')).find(|a| names(&a.name, wanted)).map(|a| a.row)
}

/// Whether a link fragment names the heading `heading` (its text, case and spacing aside, or its
/// GitHub-style slug; of a nested `Top#Nested`, the last part).
pub fn names(heading: &str, fragment: &str) -> bool {
    let wanted = fragment.rsplit('#').next().unwrap_or("").trim();
    !wanted.is_empty() && (folded(heading) == folded(wanted) || slugged(heading) == wanted.to_lowercase())
}

/// Lower case with runs of white space as one space: how Obsidian compares heading text.
fn folded(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// GitHub's heading id: lower case, punctuation dropped, spaces as hyphens.
fn slugged(s: &str) -> String {
    s.trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchors() -> Vec<Anchor> {
        ["Setup", "6. /wiki-ingest Vision Support", "Top", "Nested Part", "^quote-1"]
            .iter()
            .enumerate()
            .map(|(row, name)| Anchor { name: name.to_string(), row: row * 10 })
            .collect()
    }

    #[test]
    fn headings_match_by_text_slug_or_last_nested_part() {
        let a = anchors();
        assert_eq!(find(&a, "6. /wiki-ingest Vision Support"), Some(10));
        assert_eq!(find(&a, "6.  /WIKI-ingest vision support"), Some(10));
        assert_eq!(find(&a, "6-wiki-ingest-vision-support"), Some(10));
        assert_eq!(find(&a, "6.%20/wiki-ingest%20Vision%20Support"), Some(10));
        assert_eq!(find(&a, "Top#Nested Part"), Some(30));
        assert_eq!(find(&a, "setup"), Some(0));
        assert_eq!(find(&a, "Missing"), None);
        assert_eq!(find(&a, ""), None);
    }

    #[test]
    fn block_references_match_ids_only() {
        let a = anchors();
        assert_eq!(find(&a, "^quote-1"), Some(40));
        assert_eq!(find(&a, "^quote-2"), None);
        assert_eq!(find(&a, "quote-1"), None);
    }

    #[test]
    fn block_ids_end_a_paragraph_after_a_space() {
        assert_eq!(split_block_id("A quote. ^quote-1"), Some(("A quote.", "^quote-1")));
        assert_eq!(split_block_id("^solo"), Some(("", "^solo")));
        assert_eq!(split_block_id("x^2 is a square"), None);
        assert_eq!(split_block_id("2^10"), None);
        assert_eq!(split_block_id("ends with ^"), None);
        assert_eq!(split_block_id("footnote [^1]"), None);
    }
}
