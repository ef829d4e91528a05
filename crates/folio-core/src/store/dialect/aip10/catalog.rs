//! The root `_index.md`: every page grouped by kind, with slug, title and a one-line summary.
//!
//! AIP-10 fixes the content but no grammar; folio writes, deterministically:
//! one `# <kind>` section per kind (lower-cased, sorted; `other` for pages without one),
//! separated by blank lines, each a list of `* [<title>](<path>) `<slug>` - <summary>` lines
//! sorted by slug then path (` - <summary>` omitted when the body has no paragraph).
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use rayon::prelude::*;

use crate::store::Store;
use crate::store::model::entity::Entity;
use crate::store::read::frontmatter::{self, Block};
use crate::store::write::catalog::{self, CatalogPlan, CatalogState, one_line, push_escaped, push_one_line};

pub const INDEX: &str = "_index.md";

pub fn plan(store: &Store) -> CatalogPlan {
    let existing = std::fs::read_to_string(store.abs_path(INDEX)).ok();
    let refuse = existing.as_deref().and_then(not_a_catalog);
    CatalogPlan { path: INDEX.to_string(), content: render(&store.entities), refuse }
}

pub fn render<E: std::borrow::Borrow<Entity>>(entities: &[E]) -> String {
    // Sized once from what the lines hold (plus a margin for escapes and headings): grown by
    // doubling, a large catalog's buffer would peak at over twice its text (docs/benchmarks.md,
    // "Catalog figures").
    let estimate: usize = entities
        .iter()
        .map(|e| {
            let e = e.borrow();
            e.title.len() + e.path.len() + e.id.len() + e.description.as_deref().map_or(0, str::len) + 16
        })
        .sum();
    let mut out = String::with_capacity(estimate + estimate / 16);
    render_chunks(entities, &mut |chunk| out.push_str(chunk));
    out
}

/// The catalog's state on disk, compared a line at a time as it is rendered (`render` whole and
/// the entries read back from it would set the peak memory of `folio stats` on a large wiki:
/// docs/benchmarks.md, "Catalog figures").
pub fn state(store: &Store) -> CatalogState {
    let (file, unread) = match catalog::read_catalog(&store.abs_path(INDEX)) {
        Ok(file) => (file, None),
        Err(why) => (None, Some(why)),
    };
    let refuse = unread.or_else(|| file.as_deref().and_then(|b| std::str::from_utf8(b).ok()).and_then(not_a_catalog));
    let chunks = |emit: &mut dyn FnMut(&str)| render_chunks(&store.entities, emit);
    catalog::state_of_chunks(store, INDEX, refuse, &chunks, file.as_deref())
}

/// `render`, handed to `emit` a chunk of whole lines (each ending in a newline) at a time.
pub fn render_chunks<E: std::borrow::Borrow<Entity>>(entities: &[E], emit: &mut dyn FnMut(&str)) {
    // Sections by kind as written, then merged by their heading: two `String`s per page before.
    let mut by_written: HashMap<Option<&str>, Vec<&Entity>> = HashMap::new();
    for e in entities {
        let e = e.borrow();
        by_written.entry(e.kind.as_deref()).or_default().push(e);
    }
    let mut by_kind: BTreeMap<String, Vec<&Entity>> = BTreeMap::new();
    for (kind, pages) in by_written {
        let kind = kind.map(|k| one_line(k).to_lowercase()).filter(|k| !k.is_empty());
        by_kind.entry(kind.unwrap_or_else(|| "other".into())).or_default().extend(pages);
    }
    let mut line = String::new();
    for (i, (kind, mut pages)) in by_kind.into_iter().enumerate() {
        pages.par_sort_by(|a, b| a.id.cmp(&b.id).then_with(|| a.path.cmp(&b.path)));
        line.clear();
        if i > 0 {
            line.push('\n');
        }
        let _ = write!(line, "# {kind}\n\n");
        emit(&line);
        // A window of pages rendered on every core, a block of lines each, then handed over in
        // order: the check after a full load would otherwise run on the main thread alone
        // (docs/benchmarks.md, "Catalog figures"), and a window keeps the whole catalog from
        // being held at once.
        for window in pages.chunks(RENDER_WINDOW) {
            let blocks: Vec<String> = window.par_chunks(RENDER_BLOCK).map(render_lines).collect();
            blocks.iter().for_each(|b| emit(b));
        }
    }
}

/// Pages rendered together by one thread, and pages rendered before their lines are handed on.
const RENDER_BLOCK: usize = 1024;
const RENDER_WINDOW: usize = 16 * RENDER_BLOCK;

/// The catalog lines of `pages`, one after another.
fn render_lines(pages: &[&Entity]) -> String {
    let mut out = String::with_capacity(pages.len() * 160);
    for e in pages {
        // Written straight into the line: four `String`s per page before.
        out.push_str("* [");
        push_one_line(&mut out, &e.title, link_text_escape);
        out.push_str("](");
        push_escaped(&mut out, &e.path, link_dest_escape);
        out.push_str(") ");
        push_code_span(&mut out, &e.id);
        if let Some(d) = e.description.as_deref() {
            let bare = out.len();
            out.push_str(" - ");
            push_one_line(&mut out, d, |_| None);
            if out.len() == bare + 3 {
                out.truncate(bare);
            }
        }
        out.push('\n');
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

/// A link's text: `\\`, `[` and `]` escaped.
fn link_text_escape(b: u8) -> Option<&'static str> {
    match b {
        b'\\' => Some("\\\\"),
        b'[' => Some("\\["),
        b']' => Some("\\]"),
        _ => None,
    }
}

/// Spaces, parentheses and angle brackets would end or break a destination: encode them.
fn link_dest_escape(b: u8) -> Option<&'static str> {
    match b {
        b'%' => Some("%25"),
        b' ' => Some("%20"),
        b'(' => Some("%28"),
        b')' => Some("%29"),
        b'<' => Some("%3C"),
        b'>' => Some("%3E"),
        _ => None,
    }
}

/// A code span (on one line) that survives backticks inside the slug.
fn push_code_span(out: &mut String, s: &str) {
    let fence = if s.contains('`') { ["`` ", " ``"] } else { ["`", "`"] };
    out.push_str(fence[0]);
    push_one_line(out, s, |_| None);
    out.push_str(fence[1]);
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
    fn pages_rendered_in_blocks_come_out_in_slug_order() {
        // More pages than a window, in reverse slug order, one shared slug: every block and
        // window hands its lines over in place.
        let n = RENDER_WINDOW + RENDER_BLOCK + 7;
        let mut pages: Vec<Entity> = (0..n)
            .rev()
            .map(|i| page(&format!("entities/p{i}.md"), &format!("p{i:06}"), Some("entity"), &format!("P {i}"), None))
            .collect();
        pages.push(page("entities/a-twin.md", "p000005", Some("entity"), "Twin", Some("Second of its slug.")));
        pages.push(page("notes/q.md", "q", None, "Q", None));
        let rendered = render(&pages);
        let mut want = String::from("# entity\n\n");
        for i in 0..n {
            if i == 5 {
                // One slug: by path.
                want.push_str("* [Twin](entities/a-twin.md) `p000005` - Second of its slug.\n");
            }
            want.push_str(&format!("* [P {i}](entities/p{i}.md) `p{i:06}`\n"));
        }
        want.push_str("\n# other\n\n* [Q](notes/q.md) `q`\n");
        let first_difference = rendered.lines().zip(want.lines()).position(|(a, b)| a != b);
        assert_eq!(first_difference, None, "{:?}", first_difference.map(|i| rendered.lines().nth(i)));
        assert_eq!((rendered.len(), rendered.lines().count()), (want.len(), want.lines().count()));
    }

    /// The streamed state is the state of the whole plan compared with the file, for the
    /// rendering itself, restyled, refused, missing, not UTF-8, curated lists (complete, short
    /// of a page, with a dead or a live extra entry, fenced) and every one-line edit of the
    /// rendering (dropped, doubled, changed, swapped with the next, a heading put before it).
    #[test]
    fn streamed_state_is_the_state_of_the_whole_plan() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("KNOWLEDGE.md"), "---\nname: w\n---\n").unwrap();
        for (rel, kind, title) in [
            ("concepts/a.md", "concept", "A [one]"),
            ("concepts/b c.md", "concept", "B"),
            ("entities/z.md", "entity", "Zed"),
            ("entities/y.md", "Entity", "Why"),
            ("notes/n.md", "", "Note"),
        ] {
            let slug = crate::store::model::relpath::file_name(rel).trim_end_matches(".md").replace(' ', "-");
            let text = format!(
                "---\nschema: knowledge.entry/v1\nslug: {slug}\nkind: {kind}\ntitle: {title}\n---\n# T\n\nAbout {slug}.\n"
            );
            std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
            std::fs::write(root.join(rel), text).unwrap();
        }
        std::fs::create_dir_all(root.join("sources")).unwrap();
        std::fs::write(root.join("sources/s.md"), "raw").unwrap();
        let store = Store::load(root, super::super::KIND, "t".into());
        let rendered = render(&store.entities);
        let lines: Vec<&str> = rendered.lines().collect();
        let mut files: Vec<Option<Vec<u8>>> = vec![
            None,
            Some(rendered.clone().into_bytes()),
            Some(rendered.replace('\n', "\r\n").into_bytes()),
            Some(format!("\u{feff}{rendered}").into_bytes()),
            Some(rendered.trim_end().as_bytes().to_vec()),
            Some(b"---\nslug: x\n---\n".to_vec()),
            Some(b"# concept\n\xff\n".to_vec()),
            Some(Vec::new()),
        ];
        let all = "* [A](concepts/a.md)\n* [B](concepts/b%20c.md)\n* [Z](entities/z.md)\n* [Y](entities/y.md)\n";
        for curated in [
            format!("# Pages\n\n{all}* [N](notes/n.md)\n"),
            format!("# Pages\n\n{all}"),
            format!("# Pages\n\n{all}* [N](notes/n.md)\n- [gone](old/gone.md)\n"),
            format!("# Pages\n\n{all}* [N](notes/n.md)\n- [raw](sources/s.md) and [w](https://x.org)\n"),
            format!("Intro\n```\n* [N](notes/n.md)\n```\n{all}"),
            // Three entries of one target, apart: each is planned with the same line.
            format!("# Pages\n\n* [N](notes/n.md)\n{all}* [N2](notes/n.md)\n* [N3](notes/./n.md)\n"),
            format!("# Pages\n\n{all}* [N](notes/n.md)\n* [S](sources)\n* [S2](sources/)\n* [S3](./sources)\n"),
        ] {
            files.push(Some(curated.into_bytes()));
        }
        for i in 0..lines.len() {
            let edit = |f: &dyn Fn(&mut Vec<String>)| {
                let mut ls: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                f(&mut ls);
                Some(ls.iter().map(|l| format!("{l}\n")).collect::<String>().into_bytes())
            };
            files.push(edit(&|ls| drop(ls.remove(i))));
            files.push(edit(&|ls| ls.insert(i, ls[i].clone())));
            files.push(edit(&|ls| ls[i].push_str(" (edited)")));
            files.push(edit(&|ls| ls.swap(i, (i + 1) % lines.len())));
            files.push(edit(&|ls| ls.insert(i, "# heading".into())));
        }
        let mut seen = std::collections::HashSet::new();
        for file in &files {
            let path = store.abs_path(INDEX);
            match file {
                Some(bytes) => std::fs::write(&path, bytes).unwrap(),
                None => drop(std::fs::remove_file(&path)),
            }
            let whole = catalog::status_of(&store, vec![plan(&store)]).remove(0).state;
            assert_eq!(state(&store), whole, "{:?}", file.as_deref().map(String::from_utf8_lossy));
            seen.insert(format!("{whole:?}").chars().take(5).collect::<String>());
        }
        assert_eq!(seen.len(), 4, "fresh, stale, missing and refused are all checked: {seen:?}");
    }

    #[test]
    fn page_frontmatter_refuses_an_empty_block_does_not() {
        assert!(not_a_catalog("# entity\n").is_none());
        assert!(not_a_catalog("---\n---\n# entity\n").is_none());
        assert!(not_a_catalog("---\nslug: index\nkind: entity\n---\n").unwrap().contains("slug, kind"));
        assert!(not_a_catalog("---\nslug: x\n").is_some());
    }
}
