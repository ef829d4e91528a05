//! Moving or renaming an entity: every inbound markdown link and wikilink is rewritten (keeping
//! its syntax, its label or alias, its `#fragment` and its relative or `/absolute` form), every
//! typed-edge list naming it too, and the moved file's own relative links are adjusted to its
//! new folder. Only the bytes of the link targets change.
use std::collections::BTreeMap;
use std::ops::Range;

use super::changeset::Changeset;
use crate::store::model::entity::{EntityIdx, LinkSyntax, Resolution};
use crate::store::read::frontmatter::{self, Block};
use crate::store::{Store, model::digest, write::edit};

/// The file rewrites a move needs.
#[derive(Debug, Clone, Default)]
pub struct MovePlan {
    /// The moved file's new content.
    pub moved: String,
    /// Other files: path → (digest read, new content).
    pub referrers: BTreeMap<String, (String, String)>,
    /// Catalogs no regeneration will touch that list the moved file (its folder has no other
    /// concept left): path → (digest read, content without that entry).
    pub catalogs: BTreeMap<String, (String, String)>,
    /// Digest of the moved file as read.
    pub moved_digest: String,
    /// Links and edges left as they were, and why.
    pub skipped: Vec<String>,
    pub links_rewritten: usize,
}

impl MovePlan {
    pub fn into_changeset(self, mut cs: Changeset, from: &str, to: &str) -> Changeset {
        cs = cs.move_to(from, self.moved_digest, to, self.moved);
        for (path, (d, text)) in self.referrers.into_iter().chain(self.catalogs) {
            cs = cs.replace(&path, d, text);
        }
        cs
    }
}

/// Plan moving entity `idx` to `new_path` (relative to the root, ending in `.md`).
pub fn plan_move(store: &Store, idx: EntityIdx, new_path: &str) -> Result<MovePlan, String> {
    plan(store, idx, new_path, false)
}

/// Plan folding entity `idx` into the entity whose file is `into_path` (a merge): links to it
/// elsewhere are re-aimed at `into_path`, but inside `into_path` itself a link to it would
/// become a link to itself, so it is unwrapped to its label instead.
pub fn plan_merge(store: &Store, idx: EntityIdx, into_path: &str) -> Result<MovePlan, String> {
    plan(store, idx, into_path, true)
}

fn plan(store: &Store, idx: EntityIdx, new_path: &str, unwrap_in_target: bool) -> Result<MovePlan, String> {
    let moved = store.entity(idx);
    let old_path = moved.path.clone();
    let mut referrers: Vec<EntityIdx> = store.backlinks[idx as usize].to_vec();
    referrers.retain(|r| store.entity(*r).path != old_path);
    let mut plan = MovePlan::default();
    let new_stem = stem(new_path);
    let mut files: Vec<(String, bool)> = referrers.iter().map(|r| (store.entity(*r).path.clone(), false)).collect();
    // Provenance naming the file (OKF `sources[].resource: tables/orders.md`) is a reference too.
    let cites = |s: &String| s.trim_start_matches("./").trim_start_matches('/') == old_path;
    files.extend(
        store
            .entities
            .iter()
            .filter(|e| e.path != old_path && e.sources.iter().any(cites))
            .map(|e| (e.path.clone(), false)),
    );
    files.sort();
    files.dedup();
    files.insert(0, (old_path.clone(), true));
    for (path, is_moved) in files {
        let bytes = store.storage().read(&path).map_err(|e| format!("{path}: {e}"))?;
        let Ok(text) = String::from_utf8(bytes.clone()) else {
            if is_moved {
                return Err(format!("{path}: not valid UTF-8; folio does not rewrite it"));
            }
            plan.skipped.push(format!("{path}: not valid UTF-8; its links were left as they are"));
            continue;
        };
        let here = if is_moved { new_path } else { path.as_str() };
        let mut edits: Vec<(Range<usize>, String)> = Vec::new();
        for (i, e) in store.entities.iter().enumerate().filter(|(_, e)| e.path == path) {
            for l in &e.links {
                let to_moved = l.entity() == Some(idx);
                let relative_file = is_moved && l.syntax == LinkSyntax::Markdown && !to_moved;
                let span = l.span.start as usize..l.span.end as usize;
                // In a merge the moved text lands in `new_path` too: its links there unwrap.
                let into_target = l.entity().is_some_and(|t| store.entity(t).path == new_path);
                let self_link = if is_moved { !to_moved && into_target } else { to_moved && path == new_path };
                if unwrap_in_target && self_link {
                    match label_of(&text, span.clone(), l.syntax) {
                        Some(label) => edits.push((span, label)),
                        None => plan.skipped.push(format!("{path}:{}: link `{}` not unwrapped", l.line, l.target())),
                    }
                    continue;
                }
                let target_path = match &l.resolution {
                    Resolution::Entity(t) if *t == idx => new_path.to_string(),
                    Resolution::Entity(t) if relative_file => store.entity(*t).path.clone(),
                    Resolution::File(f) if relative_file => f.to_string(),
                    _ => continue,
                };
                let found = match l.syntax {
                    LinkSyntax::Markdown => markdown_dest(&text, span.clone())
                        .map(|r| (r.clone(), new_markdown_dest(&text[r], here, &target_path))),
                    LinkSyntax::Wiki => wiki_name(&text, span.clone()).map(|r| {
                        let name = text[r.clone()].to_string();
                        (r, new_wiki_name(&name, moved.stem(), &moved.id, new_path, &new_stem))
                    }),
                };
                match found {
                    Some((r, Some(new))) => edits.push((r, new)),
                    Some((_, None)) => {}
                    None => plan.skipped.push(format!("{path}:{}: link `{}` not rewritten", l.line, l.target())),
                }
            }
            if e.edges.iter().any(|d| d.resolved == Some(idx)) && i as EntityIdx != idx {
                // The dialect's own edge keys too (AIP-10 `links`), not only the shared ones.
                let keys: Vec<&str> =
                    e.edges.iter().filter(|d| d.resolved == Some(idx)).map(|d| d.kind.as_str()).collect();
                edits.extend(edge_edits(&text, &keys, moved.stem(), &moved.id, new_path, &new_stem));
            }
        }
        if !is_moved {
            edits.extend(resource_edits(&text, &old_path, new_path));
        }
        edits.sort_by_key(|(r, _)| r.start);
        edits.dedup_by(|a, b| a.0 == b.0);
        if edits.windows(2).any(|w| w[0].0.end > w[1].0.start) {
            return Err(format!("{path}: overlapping links; nothing rewritten"));
        }
        plan.links_rewritten += edits.iter().filter(|(r, new)| text[r.clone()] != *new).count();
        let mut out = text.clone();
        for (r, new) in edits.into_iter().rev() {
            out.replace_range(r, &new);
        }
        if is_moved {
            plan.moved = out;
            plan.moved_digest = digest::of(&bytes);
        } else if out != text {
            plan.referrers.insert(path, (digest::of(&bytes), out));
        }
    }
    orphaned_catalog_entry(store, &old_path, new_path, &mut plan);
    Ok(plan)
}

/// `resource:` values in the frontmatter naming `old` (bare, `./` or `/`), re-aimed at `new`
/// in the same form.
fn resource_edits(text: &str, old: &str, new: &str) -> Vec<(Range<usize>, String)> {
    let Block::Closed { inner, .. } = frontmatter::locate(text) else { return Vec::new() };
    let mut out = Vec::new();
    let mut pos = inner.start;
    for line in text[inner.clone()].split_inclusive('\n') {
        let item = line.trim_start().trim_start_matches("- ").trim_start();
        if let Some(value) = item.strip_prefix("resource:") {
            let v = value.trim();
            let bare = v.trim_matches(['"', '\'']);
            let (lead, rest) = match bare.strip_prefix("./") {
                Some(r) => ("./", r),
                None => bare.strip_prefix('/').map_or(("", bare), |r| ("/", r)),
            };
            if rest == old {
                let at = pos + line.find(bare).unwrap_or(0);
                if line.find(bare).is_some() {
                    out.push((at..at + bare.len(), format!("{lead}{new}")));
                }
            }
        }
        pos += line.len();
    }
    out
}

/// The moved file's folder keeps a catalog (one of the format's `catalog_files`) but no concept
/// any more: no catalog is planned for it, so its entry for the file is taken out here (else it
/// points at nothing).
fn orphaned_catalog_entry(store: &Store, old_path: &str, new_path: &str, plan: &mut MovePlan) {
    use crate::store::dialect::FileRole;
    let dir = crate::store::model::relpath::parent(old_path);
    if crate::store::model::relpath::parent(new_path) == dir
        || store.entities.iter().any(|e| e.path != old_path && crate::store::model::relpath::parent(&e.path) == dir)
    {
        return;
    }
    let in_dir = |name: &str| if dir.is_empty() { name.to_string() } else { format!("{dir}/{name}") };
    let Some(catalog) = store
        .kind()
        .spec()
        .catalog_files
        .iter()
        .map(|name| in_dir(name))
        .find(|catalog| store.other_files.iter().any(|(p, role)| p == catalog && *role == FileRole::Catalog))
    else {
        return;
    };
    let Ok(bytes) = std::fs::read(store.abs_path(&catalog)) else { return };
    let Ok(text) = String::from_utf8(bytes.clone()) else { return };
    let name = crate::store::model::relpath::file_name(old_path);
    let kept: String = text
        .split_inclusive('\n')
        .filter(|l| {
            let t = l.trim_start();
            let item = t.starts_with("* ") || t.starts_with("- ") || t.starts_with("+ ");
            !(item && (t.contains(&format!("]({name})")) || t.contains(&format!("](./{name})"))))
        })
        .collect();
    if kept != text {
        plan.catalogs.insert(catalog, (digest::of(&bytes), without_empty_sections(&kept)));
    }
}

/// A catalog without the `# Type` headings whose entries all left (and the blank lines after
/// them), so an emptied section does not stay behind as a bare heading.
fn without_empty_sections(text: &str) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].starts_with('#') {
            let end = (i + 1..lines.len()).find(|&j| lines[j].starts_with('#')).unwrap_or(lines.len());
            if lines[i + 1..end].iter().all(|l| l.trim().is_empty()) {
                i = end;
                continue;
            }
        }
        out += lines[i];
        i += 1;
    }
    out
}

/// `text`, to be written at `path`, with every body link that resolves to entity `target`
/// replaced by its label: a merge's kept entity must not link to the entity it absorbed (that
/// link would be a self-link) nor to the archived file (a broken one). For text the store has
/// not read yet, such as a merged body the reviewer wrote.
pub fn unwrap_links_in(store: &Store, path: &str, text: &str, target: EntityIdx) -> String {
    use crate::store::read::{links, resolve::Resolver};
    let body_start = match frontmatter::locate(text) {
        Block::Closed { body_start, .. } => body_start,
        _ => 0,
    };
    let found = links::extract(text, body_start, &crate::store::model::lines::LineIndex::new(text));
    let probe = crate::store::model::entity::Entity { path: path.to_string(), ..Default::default() };
    let resolver = Resolver::new(&store.entities, store.other_files.iter().map(|(p, _)| p.as_str()));
    let mut outgoing = [(found, Vec::new())];
    resolver.resolve_all(std::slice::from_ref(&probe), &mut outgoing);
    let mut out = text.to_string();
    let [(found, _)] = outgoing;
    for l in found.iter().rev().filter(|l| l.entity() == Some(target)) {
        let span = l.span.start as usize..l.span.end as usize;
        if let Some(label) = label_of(text, span.clone(), l.syntax) {
            out.replace_range(span, &label);
        }
    }
    out
}

/// What a link reads as without its destination: the label of `[label](dest)` or of a
/// reference link, the alias of `[[name|alias]]`, else the wikilink's name.
fn label_of(text: &str, span: Range<usize>, syntax: LinkSyntax) -> Option<String> {
    let s = text.get(span)?;
    match syntax {
        LinkSyntax::Wiki => {
            let inner = s.strip_prefix("[[")?.strip_suffix("]]")?;
            Some(match inner.split_once('|') {
                Some((_, alias)) => alias.to_string(),
                None => inner.split('#').next().unwrap_or(inner).to_string(),
            })
        }
        LinkSyntax::Markdown => {
            let s = s.strip_prefix('!').unwrap_or(s);
            let mut depth = 0i32;
            let mut escaped = false;
            for (i, c) in s.char_indices() {
                match c {
                    _ if escaped => escaped = false,
                    '\\' => escaped = true,
                    '[' => depth += 1,
                    ']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(s[1..i].to_string());
                        }
                    }
                    _ => {}
                }
            }
            None
        }
    }
}

fn stem(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.strip_suffix(".md").unwrap_or(name).to_string()
}

/// The raw destination of a markdown link `[label](dest "title")` or of the definition a
/// reference link `[label][ref]` uses.
fn markdown_dest(text: &str, span: Range<usize>) -> Option<Range<usize>> {
    let s = text.get(span.clone())?;
    let bytes = s.as_bytes();
    // The label: balanced brackets, backslash escapes.
    let mut depth = 0i32;
    let mut i = 0;
    let mut label_end = None;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    label_end = Some(i);
                    break;
                }
            }
            _ => {}
        }
        i += 1;
    }
    let label_end = label_end?;
    let rest = &s[label_end + 1..];
    if let Some(inner) = rest.strip_prefix('(') {
        let lead = inner.len() - inner.trim_start().len();
        let start = label_end + 2 + lead;
        let d = &s[start..];
        let len = if let Some(angle) = d.strip_prefix('<') {
            angle.find('>').map(|e| e + 2)?
        } else {
            let mut depth = 0i32;
            d.char_indices()
                .find(|&(_, c)| {
                    if c == '(' {
                        depth += 1;
                    } else if c == ')' {
                        depth -= 1;
                    }
                    c.is_whitespace() || depth < 0
                })
                .map(|(j, _)| j)
                .unwrap_or(d.len())
        };
        return Some(span.start + start..span.start + start + len);
    }
    // Reference link: `[label][ref]`, `[label][]` or `[label]`.
    let reference = match rest.strip_prefix('[') {
        Some(r) => {
            let name = &r[..r.find(']')?];
            if name.is_empty() { &s[1..label_end] } else { name }
        }
        None => &s[1..label_end],
    };
    definition_dest(text, reference)
}

fn definition_dest(text: &str, reference: &str) -> Option<Range<usize>> {
    let want = reference.trim().to_lowercase();
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        let indent = line.len() - t.len();
        if let Some(after) = t.strip_prefix('[')
            && let Some(close) = after.find("]:")
            && after[..close].trim().to_lowercase() == want
        {
            let d = &after[close + 2..];
            let lead = d.len() - d.trim_start().len();
            let start = pos + indent + 1 + close + 2 + lead;
            let dest = &text[start..];
            let len = if dest.starts_with('<') {
                dest.find('>').map(|e| e + 1)?
            } else {
                dest.find(char::is_whitespace).unwrap_or(dest.len())
            };
            return Some(start..start + len);
        }
        pos += line.len();
    }
    None
}

/// The destination re-aimed at `target` (a root-relative path), in the original's form.
fn new_markdown_dest(raw: &str, from_file: &str, target: &str) -> Option<String> {
    let (angle, inner) = match raw.strip_prefix('<').and_then(|r| r.strip_suffix('>')) {
        Some(i) => (true, i),
        None => (false, raw),
    };
    let cut = inner.find(['#', '?']).unwrap_or(inner.len());
    let (path, suffix) = inner.split_at(cut);
    let encoded = |p: &str| {
        if angle {
            p.to_string()
        } else {
            p.replace('%', "%25").replace(' ', "%20").replace('(', "%28").replace(')', "%29")
        }
    };
    let new = if path.starts_with('/') {
        format!("/{}", encoded(target))
    } else {
        let rel = relative(crate::store::model::relpath::parent(from_file), target);
        let rel = if path.starts_with("./") && !rel.starts_with("../") { format!("./{rel}") } else { rel };
        encoded(&rel)
    };
    let new = format!("{new}{suffix}");
    let new = if angle { format!("<{new}>") } else { new };
    (new != raw).then_some(new)
}

/// `to` (root-relative) as seen from the folder `from_dir` (root-relative).
fn relative(from_dir: &str, to: &str) -> String {
    let from: Vec<&str> = from_dir.split('/').filter(|s| !s.is_empty()).collect();
    let to_parts: Vec<&str> = to.split('/').collect();
    let common = from.iter().zip(&to_parts).take_while(|(a, b)| a == b).count();
    let mut out: Vec<&str> = vec![".."; from.len() - common];
    out.extend(&to_parts[common..]);
    out.join("/")
}

/// The name part of `[[name#heading|alias]]`.
fn wiki_name(text: &str, span: Range<usize>) -> Option<Range<usize>> {
    let s = text.get(span.clone())?;
    let inner = s.strip_prefix("[[")?.strip_suffix("]]")?;
    let end = inner.find(['|', '#']).unwrap_or(inner.len());
    Some(span.start + 2..span.start + 2 + end)
}

/// A wikilink or edge name re-aimed: path-style names get the new path, names matching the
/// file stem get the new stem; names matching a title or alias still resolve and stay.
fn new_wiki_name(name: &str, old_stem: &str, old_id: &str, new_path: &str, new_stem: &str) -> Option<String> {
    let n = name.trim();
    let lead = &name[..name.len() - name.trim_start().len()];
    let trail = &name[lead.len() + n.len()..];
    let with_md = n.ends_with(".md");
    let bare = n.strip_suffix(".md").unwrap_or(n).trim_start_matches('/');
    let new = if bare.contains('/') || bare.eq_ignore_ascii_case(old_id) && old_id.contains('/') {
        let p = new_path.strip_suffix(".md").unwrap_or(new_path);
        let p = if n.starts_with('/') { format!("/{p}") } else { p.to_string() };
        if with_md { format!("{p}.md") } else { p }
    } else if bare.eq_ignore_ascii_case(old_stem) {
        if with_md { format!("{new_stem}.md") } else { new_stem.to_string() }
    } else {
        return None;
    };
    let new = format!("{lead}{new}{trail}");
    (new != name).then_some(new)
}

/// Names of the moved entity inside typed-edge keys of a YAML frontmatter block.
fn edge_edits(
    text: &str,
    keys: &[&str],
    old_stem: &str,
    old_id: &str,
    new_path: &str,
    new_stem: &str,
) -> Vec<(Range<usize>, String)> {
    let Block::Closed { inner, .. } = frontmatter::locate(text) else { return Vec::new() };
    let block = &text[inner.clone()];
    let mut out = Vec::new();
    for (key, range) in edit::key_ranges(block) {
        if !crate::store::dialect::EDGE_KEYS.contains(&key.as_str())
            && key != "relations"
            && !keys.contains(&key.as_str())
        {
            continue;
        }
        let value_start = block[range.clone()].find(':').map(|c| range.start + c + 1).unwrap_or(range.start);
        let region = &block[value_start..range.end];
        for name in [old_id, old_stem] {
            let mut from = 0;
            while let Some(found) = region[from..].find(name) {
                let s = from + found;
                let e = s + name.len();
                from = e;
                let before = region[..s].chars().next_back();
                let after = region[e..].chars().next();
                let bounded = |c: Option<char>| c.is_none_or(|c| " \t\r\n[]\"',|#{}-:".contains(c));
                // `old-name` inside `other-old-name` is not a match; `-` only as a list marker.
                let before_ok = bounded(before)
                    && !(before == Some('-') && region[..s].ends_with("-") && !region[..s].ends_with("- "));
                if before_ok
                    && bounded(after)
                    && after != Some('-')
                    && let Some(new) = new_wiki_name(name, old_stem, old_id, new_path, new_stem)
                {
                    let at = inner.start + value_start + s;
                    if !out.iter().any(|(r, _): &(Range<usize>, String)| r.start < at + name.len() && at < r.end) {
                        out.push((at..at + name.len(), new));
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        assert_eq!(relative("a/b", "a/c/d.md"), "../c/d.md");
        assert_eq!(relative("", "x/y.md"), "x/y.md");
        assert_eq!(relative("x", "y.md"), "../y.md");
    }

    #[test]
    fn markdown_destinations_keep_their_form() {
        assert_eq!(new_markdown_dest("/a/old.md#h", "z/n.md", "b/new.md").as_deref(), Some("/b/new.md#h"));
        assert_eq!(new_markdown_dest("../a/old.md", "z/n.md", "b/new one.md").as_deref(), Some("../b/new%20one.md"));
        assert_eq!(new_markdown_dest("<old.md>", "n.md", "new one.md").as_deref(), Some("<new one.md>"));
        assert_eq!(new_markdown_dest("./old.md", "n.md", "new.md").as_deref(), Some("./new.md"));
    }

    #[test]
    fn finds_destinations_of_inline_and_reference_links() {
        let t = "x [a [b]](dest.md \"t\") and [r][ref]\n\n[ref]: <refd.md>\n";
        let inline = markdown_dest(t, 2..22).unwrap();
        assert_eq!(&t[inline], "dest.md");
        let r = markdown_dest(t, 27..35).unwrap();
        assert_eq!(&t[r], "<refd.md>");
    }

    #[test]
    fn resources_are_re_aimed_in_their_form() {
        let t = "---\nsources:\n  - id: x\n    resource: tables/orders.md\n  - resource: \"/tables/orders.md\"\n---\nresource: tables/orders.md\n";
        let mut out = t.to_string();
        for (r, new) in resource_edits(t, "tables/orders.md", "metrics/orders.md").into_iter().rev() {
            out.replace_range(r, &new);
        }
        let want = "---\nsources:\n  - id: x\n    resource: metrics/orders.md\n  - resource: \"/metrics/orders.md\"\n---\nresource: tables/orders.md\n";
        assert_eq!(out, want, "the body is not frontmatter");
    }

    #[test]
    fn emptied_catalog_sections_go() {
        assert_eq!(without_empty_sections("# A\n\n# B\n\n* [x](x.md)\n"), "# B\n\n* [x](x.md)\n");
        assert_eq!(without_empty_sections("# A\n\n"), "");
        assert_eq!(without_empty_sections("# A\n\n* [x](x.md)\n\n# B\n"), "# A\n\n* [x](x.md)\n\n");
    }

    #[test]
    fn labels_of_links() {
        let t = "see [`old`](./old.md#x) and [[old|the old one]] and [[old#h]]";
        let md = t.find("[`").unwrap()..t.find(")").unwrap() + 1;
        assert_eq!(label_of(t, md, LinkSyntax::Markdown).as_deref(), Some("`old`"));
        let w = t.find("[[old|").unwrap()..t.find("one]]").unwrap() + 5;
        assert_eq!(label_of(t, w, LinkSyntax::Wiki).as_deref(), Some("the old one"));
        let h = t.rfind("[[").unwrap()..t.len();
        assert_eq!(label_of(t, h, LinkSyntax::Wiki).as_deref(), Some("old"));
    }

    #[test]
    fn wiki_names() {
        assert_eq!(new_wiki_name("old", "old", "notes/old", "notes/new.md", "new").as_deref(), Some("new"));
        assert_eq!(new_wiki_name("notes/old", "old", "notes/old", "x/new.md", "new").as_deref(), Some("x/new"));
        assert_eq!(new_wiki_name("Old Title", "old", "notes/old", "x/new.md", "new"), None);
    }
}
