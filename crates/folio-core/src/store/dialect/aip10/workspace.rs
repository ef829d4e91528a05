//! The `KNOWLEDGE.md` chain: read a workspace manifest, follow `extends:` up to the workspace
//! root and merge child over parent per AIP-10's composition table.
//!
//! A malformed chain (cycle, missing parent, too deep, unreadable parent) never stops a load:
//! the spec asks hosts to fall back to the local manifest alone and surface a warning.
use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use crate::store::dialect::StoreWarning;
use crate::store::read::frontmatter::{self, Block, Fields};
use crate::store::read::fsio;

/// How many `extends:` hops a chain may take (the spec's "maximum chain depth is eight").
pub const MAX_EXTENDS_DEPTH: usize = 8;
/// A manifest is configuration, not content: anything bigger is not read.
const MAX_MANIFEST_BYTES: u64 = 1024 * 1024;
/// Warning code for a manifest that cannot be read or parsed.
pub const WORKSPACE_INVALID: &str = "workspace-invalid";

/// Fields a view keeps to itself: never inherited from a parent.
const LOCAL_ONLY: &[&str] = &["extends", "appliesTo"];
/// Sections whose leaves override one by one.
const PER_LEAF: &[&str] = &["sources", "curation", "queryHints", "display"];

/// A manifest with its chain resolved.
#[derive(Debug, Clone, Default)]
pub struct Resolved {
    /// The effective configuration (the local manifest alone when the chain is broken).
    pub merged: Fields,
    /// Manifests merged, leaf first, as paths relative to the store root (`../` when outside).
    pub chain: Vec<String>,
    pub warnings: Vec<StoreWarning>,
}

/// Resolve the chain that starts at `leaf` (a `KNOWLEDGE.md`); `root` is the store root.
pub fn resolve(root: &Path, leaf: &Path) -> Resolved {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let leaf = std::fs::canonicalize(leaf).unwrap_or_else(|_| leaf.to_path_buf());
    let shown = |p: &Path| display_path(&root, p);
    let inside = |p: &Path| p.starts_with(&root).then(|| shown(p));
    let warn = |code: &str, message: String, about: &Path| StoreWarning {
        code: code.to_string(),
        message,
        path: inside(about),
    };

    let leaf_fields = match read_manifest(&leaf) {
        Ok(f) => f,
        Err(why) => {
            return Resolved {
                merged: Fields::new(),
                chain: vec![shown(&leaf)],
                warnings: vec![warn(WORKSPACE_INVALID, format!("{}: {why}", shown(&leaf)), &leaf)],
            };
        }
    };
    let local_only = |warning: StoreWarning| Resolved {
        merged: leaf_fields.clone(),
        chain: vec![shown(&leaf)],
        warnings: vec![warning],
    };

    // Leaf first; each entry is (canonical path, fields).
    let mut chain: Vec<(PathBuf, Fields)> = vec![(leaf.clone(), leaf_fields.clone())];
    let mut visited: HashSet<PathBuf> = HashSet::from([leaf.clone()]);
    loop {
        let (current, fields) = chain.last().expect("chain starts with the leaf");
        let Some(extends) = frontmatter::get_str(fields, "extends") else { break };
        let current = current.clone();
        if chain.len() > MAX_EXTENDS_DEPTH {
            let names: Vec<String> = chain.iter().map(|(p, _)| shown(p)).collect();
            return local_only(warn(
                super::spec::EXTENDS_DEPTH,
                format!(
                    "{}: extends chain is deeper than {MAX_EXTENDS_DEPTH} ({} → …); using the local manifest only",
                    shown(&leaf),
                    names.join(" → ")
                ),
                &leaf,
            ));
        }
        let mut target = current.parent().unwrap_or(Path::new("")).join(&extends);
        if target.is_dir() {
            target.push("KNOWLEDGE.md");
        }
        let Ok(parent) = std::fs::canonicalize(&target) else {
            return local_only(warn(
                super::spec::EXTENDS_MISSING,
                format!(
                    "{}: extends `{extends}` but {} does not exist; using the local manifest only",
                    shown(&current),
                    shown(&lexical_normalize(&target))
                ),
                &current,
            ));
        };
        if !visited.insert(parent.clone()) {
            return local_only(warn(
                super::spec::EXTENDS_CYCLE,
                format!(
                    "{}: extends `{extends}`, which is already in the chain ({}); using the local manifest only",
                    shown(&current),
                    shown(&parent)
                ),
                &current,
            ));
        }
        match read_manifest(&parent) {
            Ok(f) => chain.push((parent, f)),
            Err(why) => {
                return local_only(warn(
                    WORKSPACE_INVALID,
                    format!("{} (parent of {}): {why}; using the local manifest only", shown(&parent), shown(&current)),
                    &parent,
                ));
            }
        }
    }
    let mut merged = Fields::new();
    for (_, fields) in chain.iter().rev() {
        merge_into(&mut merged, fields);
    }
    Resolved { merged, chain: chain.iter().map(|(p, _)| shown(p)).collect(), warnings: Vec::new() }
}

/// A `KNOWLEDGE.md`'s frontmatter, or why it cannot be used.
fn read_manifest(path: &Path) -> Result<Fields, String> {
    let (bytes, truncated) = fsio::read_capped(path, MAX_MANIFEST_BYTES).map_err(|e| format!("cannot read: {e}"))?;
    if truncated {
        return Err(format!("larger than {MAX_MANIFEST_BYTES} bytes; not read"));
    }
    if memchr::memchr(0, &bytes).is_some() {
        return Err("binary content (NUL bytes)".into());
    }
    let text =
        String::from_utf8(bytes).map_err(|e| format!("not valid UTF-8 at byte {}", e.utf8_error().valid_up_to()))?;
    match frontmatter::locate(&text) {
        Block::Closed { inner, .. } => frontmatter::parse_yaml(&text[inner])
            .map_err(|e| format!("frontmatter does not parse (line {}): {}", e.line + 1, e.message)),
        Block::Unterminated => Err("frontmatter starts with `---` but is never closed".into()),
        Block::None => Err("no YAML frontmatter".into()),
    }
}

/// Merge `child` over `acc` (which holds everything above it in the chain).
pub fn merge_into(acc: &mut Fields, child: &Fields) {
    for key in LOCAL_ONLY {
        acc.shift_remove(*key);
    }
    for (key, value) in child {
        // Taken out and put back under the same key, so the parent's key order is kept.
        let inherited = acc.get_mut(key).map(std::mem::take);
        let merged = match (key.as_str(), inherited) {
            ("entityTypes", Some(Value::Array(parent))) if value.is_array() => merge_entity_types(parent, value),
            ("lints", Some(Value::Array(parent))) if value.is_array() => merge_by_key(parent, value, "id"),
            ("metadata", Some(parent)) => deep_merge(parent, value),
            (k, Some(Value::Object(mut parent))) if PER_LEAF.contains(&k) && value.is_object() => {
                for (leaf, v) in value.as_object().into_iter().flatten() {
                    parent.insert(leaf.clone(), v.clone());
                }
                Value::Object(parent)
            }
            _ => value.clone(),
        };
        acc.insert(key.clone(), merged);
    }
}

/// Same `name` → the child's entry, its `fields` the union of both (parent's first);
/// new names appended.
fn merge_entity_types(parent: Vec<Value>, child: &Value) -> Value {
    let mut out = parent;
    for entry in child.as_array().into_iter().flatten() {
        let name = entry.get("name").and_then(Value::as_str);
        let existing = name.and_then(|n| out.iter().position(|p| p.get("name").and_then(Value::as_str) == Some(n)));
        match existing {
            Some(i) => {
                let mut fields: Vec<Value> =
                    out[i].get("fields").and_then(Value::as_array).cloned().unwrap_or_default();
                for f in entry.get("fields").and_then(Value::as_array).into_iter().flatten() {
                    if !fields.contains(f) {
                        fields.push(f.clone());
                    }
                }
                let mut replaced = entry.clone();
                if let Value::Object(m) = &mut replaced
                    && !fields.is_empty()
                {
                    m.insert("fields".into(), Value::Array(fields));
                }
                out[i] = replaced;
            }
            None => out.push(entry.clone()),
        }
    }
    Value::Array(out)
}

/// Same `key` value → replaced in place; new ones appended.
fn merge_by_key(parent: Vec<Value>, child: &Value, key: &str) -> Value {
    let mut out = parent;
    for entry in child.as_array().into_iter().flatten() {
        let id = entry.get(key).filter(|v| !v.is_null());
        match id.and_then(|id| out.iter().position(|p| p.get(key) == Some(id))) {
            Some(i) => out[i] = entry.clone(),
            None => out.push(entry.clone()),
        }
    }
    Value::Array(out)
}

/// Mappings merge key by key, recursively; anything else is replaced by the child.
fn deep_merge(parent: Value, child: &Value) -> Value {
    match (parent, child) {
        (Value::Object(mut p), Value::Object(c)) => {
            for (k, v) in c {
                let merged = match p.get_mut(k).map(std::mem::take) {
                    Some(old) => deep_merge(old, v),
                    None => v.clone(),
                };
                p.insert(k.clone(), merged);
            }
            Value::Object(p)
        }
        (_, c) => c.clone(),
    }
}

/// `path` relative to `root`, `/`-separated, with `..` when it lies outside.
pub fn display_path(root: &Path, path: &Path) -> String {
    if let Ok(rel) = path.strip_prefix(root) {
        return slashes(rel);
    }
    let root_parts: Vec<Component> = root.components().collect();
    let path_parts: Vec<Component> = path.components().collect();
    let common = root_parts.iter().zip(&path_parts).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return path.display().to_string();
    }
    let mut out: Vec<String> = vec!["..".to_string(); root_parts.len() - common];
    out.extend(path_parts[common..].iter().map(|c| c.as_os_str().to_string_lossy().into_owned()));
    out.join("/")
}

fn slashes(p: &Path) -> String {
    p.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect::<Vec<_>>().join("/")
}

/// Resolve `.` and `..` without touching the disk (for paths that do not exist).
fn lexical_normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(v: Value) -> Fields {
        v.as_object().unwrap().clone()
    }

    fn write(dir: &Path, rel: &str, frontmatter: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, format!("---\n{frontmatter}---\n# body\n")).unwrap();
    }

    #[test]
    fn merge_follows_the_composition_table() {
        let mut acc = Fields::new();
        merge_into(
            &mut acc,
            &fields(json!({
                "name": "base", "appliesTo": ["ws://companies/x"],
                "entityTypes": [{"name": "Person", "icon": "P", "fields": ["name", "role"]}, {"name": "Concept"}],
                "lints": [{"id": "a", "severity": "warn"}, {"id": "b", "severity": "error"}],
                "curation": {"tone": "neutral", "depth": "medium"},
                "queryHints": {"scopeTo": ["Concept", "Deal"], "preferRecent": true},
                "metadata": {"acme": {"x": 1, "y": 2}},
            })),
        );
        merge_into(
            &mut acc,
            &fields(json!({
                "name": "child", "extends": "../KNOWLEDGE.md",
                "entityTypes": [{"name": "Person", "fields": ["role", "owner"]}, {"name": "Deal"}],
                "lints": [{"id": "b", "severity": "info"}, {"id": "c"}],
                "curation": {"tone": "sales"},
                "queryHints": {"scopeTo": ["Deal"]},
                "metadata": {"acme": {"y": 3}, "other": true},
            })),
        );
        let keys: Vec<&str> = acc.keys().map(String::as_str).collect();
        assert_eq!(keys, ["name", "entityTypes", "lints", "curation", "queryHints", "metadata", "extends"]);
        let m = Value::Object(acc);
        assert_eq!(m["name"], "child");
        assert_eq!(m["extends"], "../KNOWLEDGE.md");
        assert!(m.get("appliesTo").is_none(), "appliesTo is not inherited");
        assert_eq!(
            m["entityTypes"],
            json!([{"name": "Person", "fields": ["name", "role", "owner"]}, {"name": "Concept"}, {"name": "Deal"}])
        );
        assert_eq!(m["lints"], json!([{"id": "a", "severity": "warn"}, {"id": "b", "severity": "info"}, {"id": "c"}]));
        assert_eq!(m["curation"], json!({"tone": "sales", "depth": "medium"}));
        assert_eq!(m["queryHints"], json!({"scopeTo": ["Deal"], "preferRecent": true}));
        assert_eq!(m["metadata"], json!({"acme": {"x": 1, "y": 3}, "other": true}));
    }

    #[test]
    fn three_level_chain_resolves_leaf_first() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("wiki");
        write(&root, "KNOWLEDGE.md", "name: base\ncuration: {tone: neutral, conflictResolution: defer}\n");
        write(
            &root,
            "views/team/KNOWLEDGE.md",
            "name: team\nextends: ../../KNOWLEDGE.md\ncuration: {conflictResolution: recency}\n",
        );
        write(&root, "views/team/cfo/KNOWLEDGE.md", "name: cfo\nextends: ..\ncuration: {tone: sales}\n");
        let r = resolve(&root, &root.join("views/team/cfo/KNOWLEDGE.md"));
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        assert_eq!(r.chain, ["views/team/cfo/KNOWLEDGE.md", "views/team/KNOWLEDGE.md", "KNOWLEDGE.md"]);
        assert_eq!(
            Value::Object(r.merged.clone())["curation"],
            json!({"tone": "sales", "conflictResolution": "recency"})
        );
        assert_eq!(r.merged["name"], "cfo");
    }

    #[test]
    fn parent_outside_the_root_is_shown_relative() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "base/KNOWLEDGE.md", "name: base\nversion: 1.0.0\n");
        write(dir.path(), "wiki/KNOWLEDGE.md", "name: wiki\nextends: ../base/KNOWLEDGE.md\n");
        let root = dir.path().join("wiki");
        let r = resolve(&root, &root.join("KNOWLEDGE.md"));
        assert_eq!(r.chain, ["KNOWLEDGE.md", "../base/KNOWLEDGE.md"]);
        assert_eq!(r.merged["version"], "1.0.0");
    }

    #[test]
    fn broken_chains_fall_back_to_the_local_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "cycle/KNOWLEDGE.md", "name: a\nextends: ../cycle2/KNOWLEDGE.md\n");
        write(root, "cycle2/KNOWLEDGE.md", "name: b\nextends: ../cycle/KNOWLEDGE.md\n");
        let r = resolve(root, &root.join("cycle/KNOWLEDGE.md"));
        assert_eq!(r.warnings.len(), 1);
        assert_eq!(r.warnings[0].code, crate::store::dialect::aip10::spec::EXTENDS_CYCLE);
        assert!(r.warnings[0].message.contains("cycle2/KNOWLEDGE.md"), "{}", r.warnings[0].message);
        assert_eq!((r.chain.len(), r.merged["name"].as_str()), (1, Some("a")));

        write(root, "orphan/KNOWLEDGE.md", "name: o\nextends: ../nowhere/KNOWLEDGE.md\n");
        let r = resolve(root, &root.join("orphan/KNOWLEDGE.md"));
        assert_eq!(r.warnings[0].code, crate::store::dialect::aip10::spec::EXTENDS_MISSING);
        assert!(r.warnings[0].message.contains("nowhere/KNOWLEDGE.md"));
        assert_eq!(r.chain, ["orphan/KNOWLEDGE.md"]);

        write(root, "broken/KNOWLEDGE.md", "name: [unclosed\n");
        write(root, "child/KNOWLEDGE.md", "name: c\nextends: ../broken\n");
        let r = resolve(root, &root.join("child/KNOWLEDGE.md"));
        assert_eq!(r.warnings[0].code, WORKSPACE_INVALID);
        assert_eq!(r.merged["name"], "c");
    }

    #[test]
    fn depth_is_capped_at_eight_hops() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // l0 extends l1 … l8 has no parent: exactly eight hops is fine.
        for i in 0..9 {
            let ext = if i < 8 { format!("extends: ../l{}\n", i + 1) } else { String::new() };
            write(root, &format!("l{i}/KNOWLEDGE.md"), &format!("name: l{i}\n{ext}"));
        }
        let r = resolve(root, &root.join("l0/KNOWLEDGE.md"));
        assert!(r.warnings.is_empty());
        assert_eq!(r.chain.len(), 9);
        write(root, "l8/KNOWLEDGE.md", "name: l8\nextends: ../l9\n");
        write(root, "l9/KNOWLEDGE.md", "name: l9\n");
        let r = resolve(root, &root.join("l0/KNOWLEDGE.md"));
        assert_eq!(r.warnings[0].code, crate::store::dialect::aip10::spec::EXTENDS_DEPTH);
        assert_eq!(r.chain, ["l0/KNOWLEDGE.md"]);
    }

    #[test]
    fn unreadable_leaf_is_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("KNOWLEDGE.md"), b"---\nname: \xff\n---\n").unwrap();
        let r = resolve(dir.path(), &dir.path().join("KNOWLEDGE.md"));
        assert_eq!(r.warnings[0].code, WORKSPACE_INVALID);
        assert!(r.warnings[0].message.starts_with("KNOWLEDGE.md: not valid UTF-8"));
        assert!(r.merged.is_empty());
    }
}
