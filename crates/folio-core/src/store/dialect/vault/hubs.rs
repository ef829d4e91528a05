//! An LLM wiki's hub pages (claude-obsidian's root `index.md` and each folder's `_index.md`):
//! catalogs a person or an agent keeps by hand. folio checks that they list every page of their
//! folder — the root hub every page of the vault — and keeping them current only adds the
//! missing `- [[page]]` lines after the hub's last entry, in its own list style (issue 22).
//! Dead entries are broken links, which `lint` reports as such; a hub's order, headings, prose
//! and wording are never touched.
//!
//! A folder's `_index.md` is a hub by its name; a root `index.md` only when it already reaches
//! more than half the vault's pages, and at least three (one that is an introduction rather
//! than a catalog is left alone).
use std::collections::{HashMap, HashSet};

use crate::store::Store;
use crate::store::model::entity::EntityIdx;
use crate::store::model::relpath::{file_name, parent};
use crate::store::write::catalog::{CatalogState, CatalogStatus};

/// Whether a note at `path` is a hub by its path: the root `index.md` (a hub when it lists
/// enough of the vault, decided by `status`) or a folder's `_index.md`.
pub fn is_hub(path: &str) -> bool {
    path == "index.md" || file_name(path) == "_index.md"
}

/// Each hub's state: fresh, or stale with the missing pages appended.
pub fn status(store: &Store) -> Vec<CatalogStatus> {
    let hubs: Vec<EntityIdx> =
        (0..store.entities.len() as EntityIdx).filter(|&i| is_hub(&store.entity(i).path)).collect();
    status_of(store, hubs)
}

/// `status`, given the notes of the store that are hubs by their path (`is_hub`), sorted: a
/// relint keeps them from one pass to the next rather than looking at 100k paths again.
pub fn status_among(store: &Store, named: &[String]) -> Vec<CatalogStatus> {
    let mut hubs = Vec::new();
    for p in named {
        let from = store.entities.partition_point(|e| e.path.as_str() < p.as_str());
        let to = from + store.entities[from..].partition_point(|e| e.path == *p);
        hubs.extend(from as EntityIdx..to as EntityIdx);
    }
    status_of(store, hubs)
}

fn status_of(store: &Store, hubs: Vec<EntityIdx>) -> Vec<CatalogStatus> {
    if hubs.is_empty() {
        return Vec::new();
    }
    // Built once for every hub: the pages of each folder, and how many pages share a stem.
    let mut by_dir: HashMap<&str, Vec<EntityIdx>> = HashMap::new();
    let mut all = Vec::new();
    let mut stems: HashMap<String, usize> = HashMap::new();
    let mut last_path = None;
    for (i, e) in store.entities.iter().enumerate() {
        // Files holding several entities are one page.
        if last_path == Some(e.path.as_str()) {
            continue;
        }
        last_path = Some(e.path.as_str());
        *stems.entry(e.stem().to_lowercase()).or_default() += 1;
        if !matches!(file_name(&e.path), "index.md" | "_index.md" | "log.md") {
            by_dir.entry(parent(&e.path)).or_default().push(i as EntityIdx);
            all.push(i as EntityIdx);
        }
    }
    let mut out = Vec::new();
    for hub in hubs {
        let e = store.entity(hub);
        let root_hub = e.path == "index.md";
        let scope: &[EntityIdx] = if root_hub { &all } else { by_dir.get(parent(&e.path)).map_or(&[], Vec::as_slice) };
        if scope.is_empty() {
            continue;
        }
        let linked: HashSet<EntityIdx> = e.links.iter().filter_map(|l| l.entity()).collect();
        let missing: Vec<EntityIdx> = scope.iter().copied().filter(|p| !linked.contains(p)).collect();
        // A root `index.md` listing half of the vault or less (or under three pages) is an
        // introduction, not a catalog; a `_index.md` is a folder's catalog by its name.
        let listed = scope.len() - missing.len();
        if root_hub && (listed * 2 <= scope.len() || listed < 3) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(store.abs_path(&e.path)) else { continue };
        if missing.is_empty() {
            out.push(CatalogStatus {
                path: e.path.clone(),
                state: CatalogState::Fresh,
                expected: text,
                notes: Vec::new(),
            });
            continue;
        }
        let names: Vec<String> = missing.iter().map(|&m| link_name(store, m, &stems)).collect();
        let notes = names.iter().map(|n| format!("missing [[{n}]]")).collect();
        let pages: Vec<Page> = missing
            .iter()
            .zip(&names)
            .map(|(&m, name)| {
                let p = store.entity(m);
                let kinds = p.kind.iter().map(|k| k.to_string()).chain(p.tags.iter().map(|t| t.to_string())).collect();
                Page { name: name.clone(), kinds }
            })
            .collect();
        let expected = with_entries(&text, &pages);
        out.push(CatalogStatus { path: e.path.clone(), state: CatalogState::Stale, expected, notes });
    }
    out
}

/// How a wikilink names the page: its file name when no other page has it, else its path.
fn link_name(store: &Store, i: EntityIdx, stems: &HashMap<String, usize>) -> String {
    let e = store.entity(i);
    let stem = e.stem();
    let shared = stems.get(&stem.to_lowercase()).copied().unwrap_or(0) > 1;
    if shared { e.path.trim_end_matches(".md").to_string() } else { stem.to_string() }
}

/// A page a hub misses: how a wikilink names it, and the words that say what kind of page it
/// is (its `type`, then its tags).
struct Page {
    name: String,
    kinds: Vec<String>,
}

/// `text` with a `- [[name]]` line per page, in the body (never in the frontmatter, whose
/// `related:` list may hold wikilinks too), in the hub's own list style and line ending:
/// under the section its kind belongs to when the hub is grouped by kind (`## People`,
/// `## Products & Tools`: after that section's last entry, or its last line), else after the
/// body's last list item holding a wikilink, else at the end.
fn with_entries(text: &str, pages: &[Page]) -> String {
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let body_start = match crate::store::read::frontmatter::locate(text) {
        crate::store::read::frontmatter::Block::Closed { body_start, .. } => {
            text[..body_start].split_inclusive('\n').count()
        }
        _ => 0,
    };
    let entry_at = |i: usize| list_marker(lines[i]).is_some() && lines[i].contains("[[");
    let last_entry = (body_start..lines.len()).rev().find(|&i| entry_at(i));
    let marker = last_entry.and_then(|i| list_marker(lines[i])).unwrap_or_else(|| "- ".to_string());
    let sections = sections(&lines, body_start);
    // Each page's line goes after a line of the file (None: at the end).
    let mut after: Vec<(Option<usize>, String)> = Vec::new();
    for page in pages {
        let line = format!("{marker}[[{}]]{eol}", page.name);
        let home = page_words(&page.kinds).find_map(|w| sections.iter().find(|s| s.words.contains(&w)));
        let anchor = match home {
            Some(s) => Some((s.start..s.end).rev().find(|&i| entry_at(i)).unwrap_or_else(|| {
                (s.start..s.end).rev().find(|&i| !is_blank_or_rule(lines[i])).unwrap_or(s.start)
            })),
            None => last_entry,
        };
        after.push((anchor, line));
    }
    let mut out = String::with_capacity(text.len() + 32 * pages.len());
    for (i, l) in lines.iter().enumerate() {
        out.push_str(l);
        let mut added = after.iter().filter(|(a, _)| *a == Some(i)).peekable();
        if added.peek().is_some() && !out.ends_with('\n') {
            out.push_str(eol);
        }
        added.for_each(|(_, line)| out.push_str(line));
    }
    let mut at_end = after.iter().filter(|(a, _)| a.is_none()).peekable();
    if at_end.peek().is_some() && !out.is_empty() && !out.ends_with('\n') {
        out.push_str(eol);
    }
    at_end.for_each(|(_, line)| out.push_str(line));
    out
}

/// A `##` (or deeper) section of a hub's body: its lines `start..end` (heading included) and
/// the words its heading names kinds by.
struct Section {
    start: usize,
    end: usize,
    words: Vec<String>,
}

/// The body's sections under `##`–`######` headings that name a group (a `#` title groups
/// nothing, and a heading of more than three words is a sentence: `## Add new entities here`).
fn sections(lines: &[&str], body_start: usize) -> Vec<Section> {
    let level = |l: &str| {
        let hashes = l.bytes().take_while(|b| *b == b'#').count();
        (hashes > 0 && l[hashes..].starts_with(' ')).then_some(hashes)
    };
    let mut out: Vec<Section> = Vec::new();
    let mut open: Option<(usize, usize)> = None;
    for (i, l) in lines.iter().enumerate().skip(body_start) {
        let Some(depth) = level(l) else { continue };
        if let Some((start, d)) = open.take() {
            if depth > d {
                open = Some((start, d));
                continue;
            }
            out.push(Section { start, end: i, words: page_words(&[lines[start].to_string()]).collect() });
        }
        open = (depth >= 2).then_some((i, depth));
    }
    if let Some((start, _)) = open {
        out.push(Section { start, end: lines.len(), words: page_words(&[lines[start].to_string()]).collect() });
    }
    out.retain(|s| s.words.len() <= 3);
    out
}

fn is_blank_or_rule(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || (t.len() >= 3 && (t.bytes().all(|b| b == b'-') || t.bytes().all(|b| b == b'*')))
}

/// The kinds `texts` name, as one word each: lower-cased, split at anything not a letter or
/// digit, singular, and the words LLM wikis group entities by brought to one (`person` and
/// `people`; `project`, `repo`, `plugin`, `tool` and `product`; `company` and `organization`).
fn page_words(texts: &[String]) -> impl Iterator<Item = String> + '_ {
    texts.iter().flat_map(|t| {
        t.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(|w| canonical(&w.to_lowercase())).collect::<Vec<_>>()
    })
}

fn canonical(word: &str) -> String {
    let singular = if let Some(stem) = word.strip_suffix("ies") {
        format!("{stem}y")
    } else if word.ends_with("sses") || word.ends_with("xes") || word.ends_with("ches") || word.ends_with("shes") {
        word[..word.len() - 2].to_string()
    } else if word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") {
        word[..word.len() - 1].to_string()
    } else {
        word.to_string()
    };
    let same = match singular.as_str() {
        "people" | "person" | "human" | "researcher" | "author" => "person",
        "organization" | "organisation" | "org" | "company" | "team" | "lab" | "institution" => "organization",
        "product" | "tool" | "project" | "repo" | "repository" | "plugin" | "library" | "app" | "software" => "product",
        other => other,
    };
    same.to_string()
}

/// The list marker a line starts with, with its indent (`  - `, `* `, `1. `).
fn list_marker(line: &str) -> Option<String> {
    let body = line.trim_start();
    let indent = &line[..line.len() - body.len()];
    for m in ["- ", "* ", "+ "] {
        if body.starts_with(m) {
            return Some(format!("{indent}{m}"));
        }
    }
    let digits = body.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0 && body[digits..].starts_with(". ")).then(|| format!("{indent}1. "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pages(names: &[&str]) -> Vec<Page> {
        names.iter().map(|n| Page { name: n.to_string(), kinds: Vec::new() }).collect()
    }

    #[test]
    fn entries_join_the_last_list_in_its_style() {
        let hub = "# Entities\n\nIntro.\n\n* [[Alice]] — a person\n* [[Bob]]\n\nSee also the map.\n";
        assert_eq!(
            with_entries(hub, &pages(&["Carol"])),
            "# Entities\n\nIntro.\n\n* [[Alice]] — a person\n* [[Bob]]\n* [[Carol]]\n\nSee also the map.\n"
        );
        assert_eq!(with_entries("# Hub\r\n  - [[a]]\r\n", &pages(&["b"])), "# Hub\r\n  - [[a]]\r\n  - [[b]]\r\n");
        assert_eq!(with_entries("# Hub", &pages(&["b"])), "# Hub\n- [[b]]\n");
    }

    #[test]
    fn entries_go_into_the_body_never_the_frontmatter() {
        // claude-obsidian's sources/_index.md: a `related:` list of wikilinks, a body of
        // headings and no list.
        let hub = "---\ntype: meta\nrelated:\n  - \"[[index]]\"\n  - \"[[Andrej Karpathy]]\"\n---\n\n# Sources Index\n\n\
                   ## Articles\n\n<!-- Add article source pages here -->\n\n---\n\n## Add new sources here after each ingest.\n";
        let got = with_entries(hub, &[Page { name: "ecosystem-research".into(), kinds: vec!["source".into(), "research".into()] }]);
        assert_eq!(got, format!("{hub}- [[ecosystem-research]]\n"));
    }

    #[test]
    fn an_entry_goes_under_the_section_of_its_kind() {
        // claude-obsidian's entities/_index.md.
        let hub = "---\ntype: meta\nrelated:\n  - \"[[index]]\"\n---\n\n# Entities Index\n\n## People\n\n\
                   - [[Andrej Karpathy]] — AI researcher\n\n---\n\n## Organizations\n\n<!-- Add organization pages here -->\n\n\
                   ---\n\n## Products & Tools\n\n<!-- Add tool and product pages here -->\n\n---\n\n## Add new entities here.\n";
        let page = |name: &str, kinds: &[&str]| Page { name: name.into(), kinds: kinds.iter().map(|k| k.to_string()).collect() };
        let got = with_entries(
            hub,
            &[
                page("kepano-obsidian-skills", &["entity", "github-repo", "official"]),
                page("Claude SEO", &["entity", "entity", "project", "seo"]),
                page("Ada Lovelace", &["entity", "person"]),
                page("Acme Labs", &["entity", "company"]),
                page("Something", &["entity", "misc"]),
            ],
        );
        let want = hub
            .replace("- [[Andrej Karpathy]] — AI researcher\n", "- [[Andrej Karpathy]] — AI researcher\n- [[Ada Lovelace]]\n")
            .replace("<!-- Add organization pages here -->\n", "<!-- Add organization pages here -->\n- [[Acme Labs]]\n")
            .replace(
                "<!-- Add tool and product pages here -->\n",
                "<!-- Add tool and product pages here -->\n- [[kepano-obsidian-skills]]\n- [[Claude SEO]]\n",
            )
            .replace("- [[Ada Lovelace]]\n", "- [[Ada Lovelace]]\n- [[Something]]\n");
        assert_eq!(got, want);
    }
}
