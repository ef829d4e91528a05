//! The root `_index.md`: every page grouped by kind, with slug, title and a one-line summary.
//!
//! AIP-10 fixes the content but no grammar; folio writes, deterministically:
//! one `# <kind>` section per kind (lower-cased, sorted; `other` for pages without one),
//! separated by blank lines, each a list of `* [<title>](<path>) `<slug>` - <summary>` lines
//! sorted by slug then path (` - <summary>` omitted when the body has no paragraph).
use std::collections::BTreeMap;
use std::fmt::Write;

use crate::store::Store;
use crate::store::model::entity::Entity;
use crate::store::read::frontmatter::{self, Block};
use crate::store::write::catalog::{CatalogPlan, one_line};

pub const INDEX: &str = "_index.md";

pub fn plan(store: &Store) -> CatalogPlan {
    let existing = std::fs::read_to_string(store.abs_path(INDEX)).ok();
    let refuse = existing.as_deref().and_then(not_a_catalog);
    CatalogPlan { path: INDEX.to_string(), content: render(&store.entities), refuse }
}

pub fn render<E: std::borrow::Borrow<Entity>>(entities: &[E]) -> String {
    let mut by_kind: BTreeMap<String, Vec<&Entity>> = BTreeMap::new();
    for e in entities {
        let e = e.borrow();
        let kind = e.kind.as_deref().map(|k| one_line(k).to_lowercase()).filter(|k| !k.is_empty());
        by_kind.entry(kind.unwrap_or_else(|| "other".into())).or_default().push(e);
    }
    // Sized once from what the lines hold (plus a margin for escapes): grown by doubling, a
    // 100k-page catalog peaked at 37 MB for 15 MB of text (heaptrack, `folio stats`).
    let estimate: usize = by_kind
        .iter()
        .map(|(k, pages)| {
            k.len()
                + 4
                + pages
                    .iter()
                    .map(|e| {
                        e.title.len() + e.path.len() + e.id.len() + e.description.as_deref().map_or(0, str::len) + 16
                    })
                    .sum::<usize>()
        })
        .sum();
    let mut out = String::with_capacity(estimate + estimate / 16);
    for (kind, mut pages) in by_kind {
        pages.sort_by(|a, b| a.id.cmp(&b.id).then_with(|| a.path.cmp(&b.path)));
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = write!(out, "# {kind}\n\n");
        for e in pages {
            let _ = write!(out, "* [{}]({}) {}", link_text(&e.title), link_dest(&e.path), code_span(&e.id));
            if let Some(s) = e.description.as_deref().map(one_line).filter(|s| !s.is_empty()) {
                let _ = write!(out, " - {s}");
            }
            out.push('\n');
        }
    }
    out
}

/// Why an existing `_index.md` must not be overwritten: it carries page frontmatter.
fn not_a_catalog(text: &str) -> Option<String> {
    match frontmatter::locate(text) {
        Block::None => None,
        Block::Unterminated => Some("it starts an unterminated frontmatter block".into()),
        Block::Closed { inner, .. } => match frontmatter::parse_yaml(&text[inner]) {
            Ok(f) if f.is_empty() => None,
            Ok(f) => Some(format!(
                "it carries frontmatter ({})",
                f.keys().map(String::as_str).collect::<Vec<_>>().join(", ")
            )),
            Err(e) => Some(format!("its frontmatter does not parse: {}", e.message)),
        },
    }
}

fn link_text(s: &str) -> String {
    one_line(s).replace('\\', "\\\\").replace('[', "\\[").replace(']', "\\]")
}

/// Spaces, parentheses and angle brackets would end or break a destination: encode them.
fn link_dest(s: &str) -> String {
    s.replace('%', "%25")
        .replace(' ', "%20")
        .replace('(', "%28")
        .replace(')', "%29")
        .replace('<', "%3C")
        .replace('>', "%3E")
}

/// A code span that survives backticks inside the slug.
fn code_span(s: &str) -> String {
    let s = one_line(s);
    if s.contains('`') { format!("`` {s} ``") } else { format!("`{s}`") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(path: &str, id: &str, kind: Option<&str>, title: &str, summary: Option<&str>) -> Entity {
        Entity {
            id: id.into(),
            path: path.into(),
            kind: kind.map(Into::into),
            title: title.into(),
            description: summary.map(Into::into),
            ..Default::default()
        }
    }

    #[test]
    fn grouped_by_kind_sorted_by_slug() {
        let pages = [
            page("entities/zed.md", "zed", Some("entity"), "Zed", Some("Last.")),
            page("concepts/b.md", "b-concept", Some("Concept"), "B [draft]", None),
            page("entries/a.md", "a-entity", Some("entity"), "A (one)", Some("First  line.")),
            page("notes/x y.md", "x`y", None, "X", None),
        ];
        assert_eq!(
            render(&pages),
            "# concept\n\n* [B \\[draft\\]](concepts/b.md) `b-concept`\n\n\
             # entity\n\n* [A (one)](entries/a.md) `a-entity` - First line.\n* [Zed](entities/zed.md) `zed` - Last.\n\n\
             # other\n\n* [X](notes/x%20y.md) `` x`y ``\n"
        );
        assert_eq!(render::<Entity>(&[]), "");
    }

    #[test]
    fn page_frontmatter_refuses_an_empty_block_does_not() {
        assert!(not_a_catalog("# entity\n").is_none());
        assert!(not_a_catalog("---\n---\n# entity\n").is_none());
        assert!(not_a_catalog("---\nslug: index\nkind: entity\n---\n").unwrap().contains("slug, kind"));
        assert!(not_a_catalog("---\nslug: x\n").is_some());
    }
}
