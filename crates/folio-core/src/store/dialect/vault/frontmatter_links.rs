//! Wikilinks written in an Obsidian note's frontmatter (`related: ["[[E-commerce SEO]]"]`):
//! Obsidian lists them among the note's links, so folio resolves and checks them as links too.
//! Those under a provenance key (`merged_from`) name pages a merge archived on purpose: they
//! stay the key's edges (provenance), never links that could be broken.
use crate::store::entity::{Link, LinkSyntax};
use crate::store::model::graph::is_provenance;
use crate::store::model::lines::find_double;

/// The top-level key whose value holds byte `at` of the frontmatter `head`: the nearest line
/// at or above it that starts in column 0 (a block list's items are indented or start with `-`).
fn key_at(head: &str, at: usize) -> &str {
    let mut end = at;
    loop {
        let start = memchr::memrchr(b'\n', &head.as_bytes()[..end]).map_or(0, |i| i + 1);
        let line = &head[start..];
        if !line.starts_with([' ', '\t', '-']) || start == 0 {
            return line.split_once(':').map_or("", |(k, _)| k.trim().trim_matches(['"', '\'']));
        }
        end = start - 1;
    }
}

/// The `[[target]]` / `[[target|label]]` links in `text[..body_start]` (the frontmatter
/// block), with their line and column in the file.
pub fn scan(text: &str, body_start: usize) -> Vec<Link> {
    let head = &text[..body_start.min(text.len())];
    let mut links = Vec::new();
    let mut from = 0;
    while let Some(open) = find_double(head, from, b'[') {
        let inner_start = open + 2;
        let Some(close) = find_double(head, inner_start, b']') else { break };
        let inner = &head[inner_start..close];
        from = close + 2;
        // A link never spans lines; a `[[` left open is not one.
        if inner.contains('\n') || inner.trim().is_empty() {
            from = inner_start;
            continue;
        }
        let (target, label) = match inner.split_once('|') {
            Some((t, l)) => (t.trim(), Some(l.trim())),
            None => (inner.trim(), None),
        };
        if is_provenance(key_at(head, open)) {
            continue;
        }
        let line = memchr::memchr_iter(b'\n', &head.as_bytes()[..open]).count() as u32 + 1;
        let line_start = memchr::memrchr(b'\n', &head.as_bytes()[..open]).map_or(0, |i| i + 1);
        let col = head[line_start..open].chars().count() as u32 + 1;
        links.push(Link::new(LinkSyntax::Wiki, target, label, open as u32..from as u32, line, col));
    }
    links
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_each_wikilink_of_the_frontmatter_only() {
        let text = "---\nrelated: [\"[[E-commerce SEO]]\", \"[[B|bee]]\"]\nup: \"[[broken\n---\nbody [[C]]\n";
        let body = text.find("body").unwrap();
        let links = scan(text, body);
        let found: Vec<(&str, Option<&str>, u32, u32)> =
            links.iter().map(|l| (l.target(), l.label(), l.line, l.col)).collect();
        assert_eq!(found, [("E-commerce SEO", None, 2, 12), ("B", Some("bee"), 2, 34)]);
    }

    /// Issue 41: a merge trail in wikilinks is provenance, not links to check.
    #[test]
    fn a_merge_trail_holds_no_links() {
        let text = "---\nmerged_from: [\"[[Gone]]\"]\nrelated:\n  - \"[[B]]\"\nmerged_from2: x\n\"merged_from\":\n  - \"[[Old]]\"\n  -\n    \"[[Older]]\"\nup: \"[[C]]\"\n---\n";
        let targets: Vec<String> = scan(text, text.len()).iter().map(|l| l.target().to_string()).collect();
        assert_eq!(targets, ["B", "C"]);
    }
}
