//! `migrate --to okf` (docs/formats/okf.md, "Migrating to OKF"): the OKF alignment of an evolve store —
//! `trigger` → `description`, `[[wikilinks]]` → `[name](/type/name.md)` where they resolve (the
//! others are reported and left as they are), a `timestamp` from the entity's history where known, per-folder
//! `index.md` catalogs and a root `index.md` with `okf_version: "0.1"` — and the same alignment
//! for plain vaults (`summary` → `description`, wikilinks, catalogs). One changeset.
use std::collections::{BTreeMap, BTreeSet};

use crate::store::write::audit::AuditEvent;
use crate::store::write::catalog::one_line;
use crate::store::write::changeset::Changeset;
use crate::store::write::edit::{self, FieldEdit, quote};
use crate::store::dialect::{Grammar, parse_key_values};
use crate::store::model::entity::{Entity, LinkSyntax};
use crate::store::read::frontmatter::{self, Block, Fields};
use crate::store::{Store, model::digest};

pub const OKF_VERSION: &str = "0.1";

/// The migration of a store, ready to preview or apply.
#[derive(Debug)]
pub struct Migration {
    pub changeset: Changeset,
    /// Wikilinks that resolve to nothing (left as they are).
    pub unresolved: Vec<String>,
    /// Everything else the person should know (entities without `type`, requoted values…).
    pub notes: Vec<String>,
    pub links_converted: usize,
}

/// Plan the OKF alignment of `store`.
pub fn to_okf(store: &Store, by: &str) -> Result<Migration, String> {
    let format = store.kind().format();
    if format.spec().migration_to("okf").is_none() {
        return Err(format!("migrate --to okf applies to evolve stores and vaults, not {} stores", format.spec().name));
    }
    let grammar = format.grammar();
    let history = store.dialect.history(&store.root);
    let mut m = Migration {
        changeset: Changeset::new(AuditEvent::new("migrate", by, "")),
        unresolved: Vec::new(),
        notes: Vec::new(),
        links_converted: 0,
    };
    // path → (description, type) as the migrated file says.
    let mut descriptions: BTreeMap<String, (Option<String>, Option<String>)> = BTreeMap::new();
    let mut files_changed = 0;
    for e in &store.entities {
        let shared = store.entities.iter().filter(|o| o.path == e.path).count() > 1;
        let name = e.path.rsplit('/').next().unwrap_or(&e.path);
        // Catalogs and logs are OKF's reserved names: regenerated below, never entities.
        if shared || !e.path.ends_with(".md") || name == "index.md" || name == "log.md" {
            continue;
        }
        let bytes = std::fs::read(store.abs_path(&e.path)).map_err(|err| format!("{}: {err}", e.path))?;
        let Ok(text) = String::from_utf8(bytes.clone()) else {
            m.notes.push(format!("{}: not valid UTF-8; left as it is", e.path));
            continue;
        };
        let mut out = match align_fields(&text, grammar, e, &history, &mut m.notes) {
            Ok(t) => t,
            Err(err) => {
                m.notes.push(format!("{}: {err}; fields left as they are", e.path));
                text.clone()
            }
        };
        out = convert_wikilinks(store, e, &text, &out, &mut m);
        descriptions.insert(e.path.clone(), (description_of(&out, "description"), description_of(&out, "type")));
        if fields_of(&out).map(|f| f.contains_key("type")) != Some(true) {
            m.notes.push(format!("{}: no `type`; OKF requires one (not invented)", e.path));
        }
        if out != text {
            files_changed += 1;
            m.changeset = m.changeset.replace(&e.path, digest::of(&bytes), out);
        }
    }
    let mut catalogs = 0;
    for (path, content) in catalog_files(store, &descriptions) {
        match std::fs::read(store.abs_path(&path)) {
            Ok(old) if old == content.as_bytes() => {}
            Ok(old) => {
                catalogs += 1;
                m.changeset = m.changeset.replace(&path, digest::of(&old), content);
            }
            Err(_) => {
                catalogs += 1;
                m.changeset = m.changeset.create(&path, content);
            }
        }
    }
    m.changeset.event.summary = format!(
        "aligned the store with OKF v{OKF_VERSION}: {files_changed} entities rewritten, {} wikilinks converted, {catalogs} catalogs written",
        m.links_converted
    );
    m.changeset.event = m.changeset.event.clone().detail("unresolved", m.unresolved.len());
    Ok(m)
}

fn fields_of(text: &str) -> Option<Fields> {
    match frontmatter::locate(text) {
        Block::Closed { inner, .. } => frontmatter::parse_yaml(&text[inner]).ok(),
        _ => None,
    }
}

/// A field of a migrated file (YAML by now; evolve's own grammar if it still is not).
fn description_of(text: &str, key: &str) -> Option<String> {
    let Block::Closed { inner, .. } = frontmatter::locate(text) else { return None };
    let f = frontmatter::parse_yaml(&text[inner.clone()]).unwrap_or_else(|_| parse_key_values(&text[inner]));
    frontmatter::get_str(&f, key)
}

/// `trigger`/`summary` → `description`, `timestamp` where history knows it, and values YAML
/// would misread quoted (an OKF bundle's frontmatter must be YAML).
fn align_fields(
    text: &str,
    grammar: Grammar,
    e: &Entity,
    history: &[crate::store::model::history::HistoryEvent],
    notes: &mut Vec<String>,
) -> Result<String, edit::EditError> {
    let Block::Closed { inner, .. } = frontmatter::locate(text) else { return Ok(text.to_string()) };
    let fields = match grammar {
        Grammar::KeyValue => parse_key_values(&text[inner]),
        Grammar::Yaml => {
            frontmatter::parse_yaml(&text[inner]).map_err(|err| edit::EditError::Unparseable(err.message))?
        }
    };
    let mut out = text.to_string();
    let legacy = if grammar == Grammar::KeyValue { "trigger" } else { "summary" };
    if fields.contains_key(legacy) {
        if fields.contains_key("description") {
            notes.push(format!("{}: has both `{legacy}` and `description`; `{legacy}` kept", e.path));
        } else {
            out = edit::apply(&out, grammar, &FieldEdit::rename(legacy, "description"))?;
        }
    }
    if !fields.contains_key("timestamp") {
        let from_history = history.iter().filter(|h| h.entities.contains(&e.id)).filter_map(|h| h.ts.clone()).max();
        if let Some(ts) = frontmatter::get_str(&fields, "published_at").or(from_history) {
            out = edit::apply(&out, grammar, &FieldEdit::set("timestamp", ts))?;
        }
    }
    if grammar == Grammar::KeyValue {
        out = requote_for_yaml(&out, &e.path, notes);
    }
    Ok(out)
}

/// evolve writes values raw; the lines YAML would misread get double quotes.
fn requote_for_yaml(text: &str, path: &str, notes: &mut Vec<String>) -> String {
    let Block::Closed { inner, .. } = frontmatter::locate(text) else { return text.to_string() };
    let block = &text[inner.clone()];
    let mut new_block = String::with_capacity(block.len());
    for line in block.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let ending = &line[content.len()..];
        let Some((key, value)) = content.split_once(':') else {
            new_block.push_str(line);
            continue;
        };
        let value = value.trim();
        let read = frontmatter::parse_yaml(&format!("k: {value}\n")).ok().and_then(|f| f.get("k").cloned());
        let already_quoted = value.starts_with(['"', '\'']) && matches!(read, Some(serde_json::Value::String(_)));
        let reads_back = already_quoted || read.is_some_and(|v| frontmatter::scalar_text(&v) == value);
        if reads_back || value.is_empty() {
            new_block.push_str(line);
        } else {
            notes.push(format!("{path}: `{}` quoted so that YAML reads it as written", key.trim()));
            new_block.push_str(&format!("{}: {}{ending}", key.trim(), quote::string(value, false)));
        }
    }
    format!("{}{new_block}{}", &text[..inner.start], &text[inner.end..])
}

/// `[[name|alias]]` → `[alias or name](/path.md)` for wikilinks that resolve to an entity.
fn convert_wikilinks(store: &Store, e: &Entity, original: &str, current: &str, m: &mut Migration) -> String {
    let mut out = current.to_string();
    // Field edits only touch the frontmatter: body offsets shift by the same amount.
    let shift = current.len() as isize - original.len() as isize;
    let mut wikis: Vec<_> = e.links.iter().filter(|l| l.syntax == LinkSyntax::Wiki).collect();
    wikis.sort_by_key(|l| std::cmp::Reverse(l.span.start));
    for l in wikis {
        match l.entity() {
            Some(t) => {
                let target = store.entity(t);
                let label = l.label().unwrap_or(l.target()).to_string();
                let label = label.replace('[', "\\[").replace(']', "\\]");
                let dest = target.path.replace('%', "%25").replace(' ', "%20").replace('(', "%28").replace(')', "%29");
                let start = (l.span.start as isize + shift) as usize;
                let end = (l.span.end as isize + shift) as usize;
                if out.get(start..end).is_some_and(|s| s.starts_with("[[")) {
                    out.replace_range(start..end, &format!("[{label}](/{dest})"));
                    m.links_converted += 1;
                }
            }
            None => {
                m.unresolved.push(format!("{}:{}: [[{}]] does not resolve; left as it is", e.path, l.line, l.target()))
            }
        }
    }
    out
}

/// One `index.md` per folder holding entities (directly or below): `# <type>` sections of
/// `* [name](/path.md) - description`, `# Subdirectories`, and `okf_version` at the root.
fn catalog_files(
    store: &Store,
    descriptions: &BTreeMap<String, (Option<String>, Option<String>)>,
) -> Vec<(String, String)> {
    let mut direct: BTreeMap<String, Vec<&Entity>> = BTreeMap::new();
    let mut dirs: BTreeSet<String> = BTreeSet::new();
    dirs.insert(String::new());
    for e in store.entities.iter().filter(|e| descriptions.contains_key(&e.path)) {
        let dir = crate::store::model::relpath::parent(&e.path).to_string();
        let mut d = dir.as_str();
        while !d.is_empty() {
            dirs.insert(d.to_string());
            d = crate::store::model::relpath::parent(d);
        }
        direct.entry(dir).or_default().push(e);
    }
    let by_stem = store.kind().spec().migration_to("okf").is_some_and(|a| a.entries_named_by_stem);
    let mut out = Vec::new();
    for dir in &dirs {
        let mut text = String::new();
        if dir.is_empty() {
            text += &format!("---\nokf_version: \"{OKF_VERSION}\"\n---\n\n");
        }
        let mut by_type: BTreeMap<String, Vec<&Entity>> = BTreeMap::new();
        for e in direct.get(dir).into_iter().flatten() {
            let ty =
                descriptions.get(&e.path).and_then(|(_, t)| t.clone()).or_else(|| e.kind.as_deref().map(String::from));
            by_type.entry(ty.unwrap_or_else(|| "Other".into())).or_default().push(e);
        }
        for (ty, mut list) in by_type {
            let name = |e: &Entity| if by_stem { e.stem().to_string() } else { e.title.clone() };
            list.sort_by_cached_key(|e| (name(e).to_lowercase(), e.path.clone()));
            text += &format!("# {}\n\n", one_line(&ty));
            for e in list {
                let label = one_line(&name(e)).replace('[', "\\[").replace(']', "\\]");
                text += &format!("* [{label}](/{})", e.path.replace(' ', "%20"));
                if let Some(d) = descriptions.get(&e.path).and_then(|(d, _)| d.clone()) {
                    text += &format!(" - {}", one_line(&d));
                }
                text += "\n";
            }
            text += "\n";
        }
        let subdirs: Vec<&String> =
            dirs.iter().filter(|d| !d.is_empty() && crate::store::model::relpath::parent(d) == dir).collect();
        if !subdirs.is_empty() {
            text += "# Subdirectories\n\n";
            for s in subdirs {
                let name = s.rsplit('/').next().unwrap_or(s);
                text += &format!("* [{name}]({}/index.md)\n", name.replace(' ', "%20"));
            }
            text += "\n";
        }
        let text = text.trim_end().to_string() + "\n";
        out.push((if dir.is_empty() { "index.md".to_string() } else { format!("{dir}/index.md") }, text));
    }
    out
}
