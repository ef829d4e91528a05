//! Byte-exactness of surgical edits and link repointing over every real corpus file: an edit
//! re-parses to exactly the intended change and no byte outside the edited key changes; a move
//! changes only link destinations and keeps every link resolving.
use crate::support;
use support::*;

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{Value, json};

use folio::store::Store;
use folio::store::dialect::{Grammar, parse_key_values};
use folio::store::model::entity::Resolution;
use folio::store::read::frontmatter::{self, Block};
use folio::store::write::edit::{self, FieldEdit};
use folio::store::write::repoint;

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            markdown_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "md") {
            out.push(p);
        }
    }
}

/// Every corpus file with a frontmatter block its grammar parses, with that grammar (read once:
/// every case of the property picks from the same list). A corpus missing under
/// FOLIO_REQUIRE_SHARED panics here once, with its message, and leaves the list empty: every
/// case is then rejected and the property fails, instead of panicking again in each case.
fn editable_files() -> &'static [(PathBuf, String, Grammar)] {
    static FILES: std::sync::OnceLock<Vec<(PathBuf, String, Grammar)>> = std::sync::OnceLock::new();
    FILES.get_or_init(|| std::panic::catch_unwind(read_editable_files).unwrap_or_default())
}

fn read_editable_files() -> Vec<(PathBuf, String, Grammar)> {
    let mut files = Vec::new();
    for root in corpus_roots() {
        markdown_files(&root, &mut files);
    }
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            let grammar = if p.to_string_lossy().contains("/evolve/") { Grammar::KeyValue } else { Grammar::Yaml };
            let Block::Closed { inner, .. } = frontmatter::locate(&text) else { return None };
            let ok = grammar == Grammar::KeyValue || frontmatter::parse_yaml(&text[inner]).is_ok();
            ok.then_some((p, text, grammar))
        })
        .collect()
}

fn fields(text: &str, grammar: Grammar) -> serde_json::Map<String, Value> {
    let Block::Closed { inner, .. } = frontmatter::locate(text) else { return Default::default() };
    match grammar {
        Grammar::Yaml => frontmatter::parse_yaml(&text[inner]).unwrap(),
        Grammar::KeyValue => parse_key_values(&text[inner]),
    }
}

fn value_strategy() -> impl Strategy<Value = Value> {
    prop_oneof![
        "[ -~]{0,30}".prop_map(Value::String),
        "[a-z]{1,12}( [a-z]{1,8}){0,3}".prop_map(Value::String),
        any::<i32>().prop_map(|n| json!(n)),
        any::<bool>().prop_map(|b| json!(b)),
        proptest::collection::vec("[a-z:#' ]{1,10}", 0..4).prop_map(|v| json!(v)),
        Just(json!("yes")),
        Just(json!("2026-01-01T00:00:00Z")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn surgical_edits_change_only_the_edited_key(
        pick in any::<prop::sample::Index>(),
        key_pick in any::<prop::sample::Index>(),
        op in 0..5u8,
        value in value_strategy(),
    ) {
        let files = editable_files();
        prop_assume!(!files.is_empty());
        let (path, text, grammar) = &files[pick.index(files.len())];
        let before = fields(text, *grammar);
        let keys: Vec<&String> = before.keys().collect();
        let Block::Closed { inner, .. } = frontmatter::locate(text) else { unreachable!() };
        let block = &text[inner.clone()];
        let existing = (!keys.is_empty()).then(|| keys[key_pick.index(keys.len())].clone());
        let value = if *grammar == Grammar::KeyValue {
            Value::String(frontmatter::scalar_text(&value).replace(['\n', '\r'], " ").trim().to_string())
        } else {
            value
        };
        let (edit, key_for_extent) = match (op, existing) {
            (0, Some(k)) => (FieldEdit::Set { key: k.clone(), value: value.clone() }, Some(k)),
            (1, Some(k)) => (FieldEdit::remove(&k), Some(k)),
            (2, Some(k)) => (FieldEdit::rename(&k, "folio_renamed_key"), Some(k)),
            (4, Some(k)) if *grammar == Grammar::Yaml => (FieldEdit::append(&k, vec![value.clone()]), Some(k)),
            _ => (FieldEdit::Set { key: "folio_new_key".into(), value: value.clone() }, None),
        };
        let out = match edit::apply(text, *grammar, &edit) {
            Ok(out) => out,
            // evolve keys may repeat or hold characters no key may have: refusing is fine.
            Err(edit::EditError::BadKey(_) | edit::EditError::KeyExists(_)) => return Ok(()),
            // Appending to a value that is not a list (or not one written as a plain block or
            // one-line flow list) is refused; the caller then sets the whole value.
            Err(edit::EditError::NotAList(_)) if matches!(edit, FieldEdit::Append { .. }) => return Ok(()),
            Err(e) => return Err(TestCaseError::fail(format!("{}: {e}", path.display()))),
        };
        // 1. The fields read back are exactly the intended change.
        let after = fields(&out, *grammar);
        let mut expected = before.clone();
        match &edit {
            FieldEdit::Set { key, value } => {
                let v = if *grammar == Grammar::KeyValue { Value::String(frontmatter::scalar_text(value)) } else { value.clone() };
                expected.insert(key.clone(), v);
            }
            FieldEdit::Remove { key } => { expected.remove(key); }
            FieldEdit::Rename { from, to } => {
                expected = before.iter().map(|(k, v)| (if k == from { to.clone() } else { k.clone() }, v.clone())).collect();
            }
            FieldEdit::Append { key, items } => {
                let mut list = before[key].as_array().cloned().unwrap_or_default();
                list.extend(items.iter().cloned());
                expected.insert(key.clone(), Value::Array(list));
            }
        }
        prop_assert_eq!(&after, &expected, "{}", path.display());
        // 2. Only bytes inside the edited key's extent (or the end of the block, for a new key) change.
        let allowed = match key_for_extent {
            Some(k) if *grammar == Grammar::Yaml => edit::key_ranges(block)
                .into_iter()
                .find(|(name, _)| *name == k)
                .map(|(_, r)| inner.start + r.start..inner.start + r.end)
                .unwrap(),
            Some(k) => {
                let mut pos = inner.start;
                let mut range = inner.clone();
                for l in block.split_inclusive('\n') {
                    if l.split_once(':').is_some_and(|(name, _)| name.trim() == k) {
                        range = pos..pos + l.len();
                    }
                    pos += l.len();
                }
                range
            }
            None => inner.end..inner.end,
        };
        let (keep_before, keep_after) = (&text[..allowed.start], &text[allowed.end..]);
        // 3. Appending to a block list keeps every byte of the items already there.
        if matches!(edit, FieldEdit::Append { .. }) && text[allowed.clone()].lines().next().is_some_and(|l| l.trim_end().ends_with(':')) {
            prop_assert!(out[allowed.start..].starts_with(&text[allowed.clone()]), "{}: an append rewrote the list", path.display());
        }
        prop_assert!(
            out.len() >= keep_before.len() + keep_after.len() && out.starts_with(keep_before) && out.ends_with(keep_after),
            "{}: bytes outside {:?} changed", path.display(), allowed
        );
        // 3. The body is untouched, byte for byte.
        let body_old = match frontmatter::locate(text) { Block::Closed { body_start, .. } => &text[body_start..], _ => text.as_str() };
        let body_new = match frontmatter::locate(&out) { Block::Closed { body_start, .. } => &out[body_start..], _ => out.as_str() };
        prop_assert_eq!(body_old, body_new);
    }
}

/// Text with every link span blanked out: what must not change when links are repointed.
fn outside_links(store: &Store, path: &str, text: &str) -> String {
    let mut spans: Vec<_> =
        store.entities.iter().filter(|e| e.path == path).flat_map(|e| e.links.iter().map(|l| l.span.clone())).collect();
    spans.sort_by_key(|s| s.start);
    let mut out = String::new();
    let mut pos = 0;
    for s in spans {
        out.push_str(&text[pos..s.start as usize]);
        out.push('\u{0}');
        pos = s.end as usize;
    }
    out.push_str(&text[pos..]);
    // Reference definitions carry destinations too.
    out.lines().filter(|l| !(l.trim_start().starts_with('[') && l.contains("]:"))).collect::<Vec<_>>().join("\n")
}

#[test]
fn repointing_changes_only_link_destinations_on_every_okf_corpus() {
    for bundle in [
        "okf-v0.1/crypto_bitcoin",
        "okf-v0.1/ga4",
        "okf-v0.1/stackoverflow",
        "okf-v0.2/acme_retail",
        "okf-v0.2/crypto_bitcoin",
        "okf-v0.2/ga4",
    ] {
        let src = corpus(bundle);
        let store = Store::load(&src, folio::store::dialect::okf::KIND, "test".into());
        // The entity the most body links lead to (typed edges such as OKF's `sources[].resource`
        // are not link spans).
        let linked_to =
            |t: usize| store.entities.iter().filter(|e| e.links.iter().any(|l| l.entity() == Some(t as u32))).count();
        let Some(idx) = (0..store.entities.len()).max_by_key(|&t| (linked_to(t), std::cmp::Reverse(t))) else {
            continue;
        };
        let moved = store.entity(idx as u32).clone();
        if linked_to(idx) == 0 {
            continue;
        }
        let new_path = format!("moved/deeper/{}", moved.path.rsplit('/').next().unwrap());
        let plan = repoint::plan_move(&store, idx as u32, &new_path).unwrap();
        assert!(plan.links_rewritten > 0, "{bundle}");
        let (_d, scratch_root) = scratch(&src);
        std::fs::remove_file(scratch_root.join(&moved.path)).unwrap();
        write(&scratch_root, &new_path, &plan.moved);
        for (path, (_, text)) in &plan.referrers {
            let old = std::fs::read_to_string(src.join(path)).unwrap();
            assert_ne!(&old, text, "{bundle}: {path} listed but unchanged");
            std::fs::remove_file(scratch_root.join(path)).unwrap();
            write(&scratch_root, path, text);
        }
        let after = Store::load(&scratch_root, folio::store::dialect::okf::KIND, "test".into());
        for (path, (_, text)) in &plan.referrers {
            let old = std::fs::read_to_string(src.join(path)).unwrap();
            assert_eq!(outside_links(&store, path, &old), outside_links(&after, path, text), "{bundle}: {path}");
        }
        let new_idx = after.entities.iter().position(|e| e.path == new_path).unwrap() as u32;
        // Every link keeps resolving to the same file it did before (the moved one at its new place).
        let target_of = |s: &Store, r: &Resolution| match r {
            Resolution::Entity(t) => Some(s.entity(*t).path.clone()),
            Resolution::File(f) => Some(f.to_string()),
            _ => None,
        };
        for e in &store.entities {
            let now_path = if e.path == moved.path { new_path.clone() } else { e.path.clone() };
            let Some(a) = after.entities.iter().find(|x| x.path == now_path) else { panic!("{now_path} lost") };
            assert_eq!(e.links.len(), a.links.len(), "{bundle}: {now_path}");
            for (l_old, l_new) in e.links.iter().zip(&a.links) {
                let was =
                    target_of(&store, &l_old.resolution).map(|p| if p == moved.path { new_path.clone() } else { p });
                assert_eq!(
                    was,
                    target_of(&after, &l_new.resolution),
                    "{bundle}: {now_path}:{} `{}`",
                    l_old.line,
                    l_old.target()
                );
            }
        }
        assert_eq!(after.backlinks[new_idx as usize].len(), store.backlinks[idx].len(), "{bundle}");
    }
}
