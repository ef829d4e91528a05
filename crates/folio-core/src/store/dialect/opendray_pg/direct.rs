//! Rows straight into the model: a node fetched from the database is rendered once as the
//! export writes it (the snapshot keeps that text, and `show`, body cuts and writes read it),
//! and made an entity at once from its frontmatter's fields as built from the row
//! (`rows::Node::fields`), instead of the loader parsing back the YAML just written — on a
//! first open, parsing 100k renderings back was a large share of the time
//! (docs/benchmarks.md, "Round: issue 43 (… seventh session: rows into the model)").
//!
//! The loader asks for a file's entities by its path and text (`Dialect::held_entities`,
//! `take`); they are given only for the very text they were made from (a hash of it is
//! kept), once, and only when its YAML is known to read back as the same fields
//! (`reads_back`): anything else is parsed as before.
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use super::OpendrayPg;
use crate::store::model::entity::Entity;
use crate::store::model::shared_values::SharedValues;
use crate::store::read::frontmatter::view::{Val, View};

/// Shards of the table, so the loader's threads seldom wait on one another.
const SHARDS: usize = 16;

type Shard = HashMap<String, (u64, Vec<Entity>), foldhash::fast::RandomState>;

/// The entities handed over for one database folder, not yet taken.
struct Known {
    root: PathBuf,
    shards: Vec<Mutex<Shard>>,
}

/// What the last open, poll or decision of this process read from rows (one database
/// folder: a process opens one store).
static KNOWN: RwLock<Option<Arc<Known>>> = RwLock::new(None);

/// The hash a text is known by: stable within the process, which is all the table lives.
fn text_hash(text: &str) -> u64 {
    foldhash::fast::FixedState::with_seed(0x6f70_656e_6472_6179).hash_one(text)
}

fn shard_of(rel: &str) -> usize {
    (foldhash::fast::FixedState::with_seed(7).hash_one(rel) as usize) % SHARDS
}

/// One node's entities, made from its fields as rendered into its text at its path, to be
/// handed over (`hand_over`); nothing when the fields might not read back as they are
/// (`reads_back`): the loader parses that text.
pub struct Handed(Option<(String, u64, Vec<Entity>)>);

impl Handed {
    pub fn new(dialect: &OpendrayPg, rel: &str, text: &str, fields: View<'static>, values: &mut SharedValues) -> Handed {
        if !reads_back(&fields) {
            return Handed(None);
        }
        let mut given = Some(fields);
        let entities = crate::store::read::load::parse_held_with(
            rel,
            text,
            &mut |file| dialect.parse_given(file, given.take()),
            values,
        );
        Handed(Some((rel.to_string(), text_hash(text), entities)))
    }
}

/// Hand over these nodes' entities for `root`, replacing what was handed over before.
pub fn hand_over(root: &Path, nodes: Vec<Handed>) {
    let mut shards: Vec<Shard> = (0..SHARDS).map(|_| Shard::default()).collect();
    for (rel, hash, entities) in nodes.into_iter().filter_map(|h| h.0) {
        shards[shard_of(&rel)].insert(rel, (hash, entities));
    }
    let known = Known { root: root.to_path_buf(), shards: shards.into_iter().map(Mutex::new).collect() };
    *KNOWN.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(known));
}

/// The entities made from `text` at `rel` of `root`, once: None when none were handed over
/// for this very text (the caller parses it).
pub fn take(root: &Path, rel: &str, text: &str) -> Option<Vec<Entity>> {
    let known = KNOWN.read().unwrap_or_else(|e| e.into_inner()).clone()?;
    if known.root != root {
        return None;
    }
    let mut shard = known.shards[shard_of(rel)].lock().unwrap_or_else(|e| e.into_inner());
    let (hash, _) = shard.get(rel)?;
    if *hash != text_hash(text) {
        shard.remove(rel);
        return None;
    }
    shard.remove(rel).map(|(_, e)| e)
}

/// Drop what was handed over and not taken (the load is done, or the store was cached).
pub fn forget(root: &Path) {
    let mut known = KNOWN.write().unwrap_or_else(|e| e.into_inner());
    if known.as_ref().is_some_and(|k| k.root == root) {
        *known = None;
    }
}

/// Whether serde_yaml_ng writes these fields as YAML that its reader (with
/// `frontmatter::yaml_to_json`) gives back unchanged. Strings, numbers, booleans, null, lists
/// and maps all do, save for characters YAML escapes or folds (controls other than line feed
/// and tab, carriage returns, the Unicode line and paragraph separators, NEL, the BOM):
/// those are left to the parser, as is any float that is not finite (JSON has none).
pub fn reads_back(fields: &View) -> bool {
    fields.iter().all(|(k, v)| plain_text(k) && value_reads_back(v))
}

fn value_reads_back(v: &Val) -> bool {
    match v {
        Val::Null | Val::Bool(_) => true,
        Val::Num(n) => n.as_f64().is_some_and(f64::is_finite),
        Val::Str(s) => plain_text(s),
        Val::List(a) => a.iter().all(value_reads_back),
        Val::Map(m) => reads_back(m),
    }
}

/// No character YAML escapes or folds (`reads_back`), found by bytes rather than by decoding
/// each character (every string of 100k nodes passes here on a first open): the controls are
/// U+0000–U+001F and U+007F (one byte each) and U+0080–U+009F (0xC2 then 0x80–0x9F, NEL among
/// them); U+2028 and U+2029 are 0xE2 0x80 0xA8/0xA9, the BOM 0xEF 0xBB 0xBF.
fn plain_text(s: &str) -> bool {
    let b = s.as_bytes();
    b.iter().enumerate().all(|(i, &c)| match c {
        b'\n' | b'\t' => true,
        0..=0x1f | 0x7f => false,
        0xc2 => !matches!(b.get(i + 1), Some(0x80..=0x9f)),
        0xe2 => !matches!((b.get(i + 1), b.get(i + 2)), (Some(0x80), Some(0xa8 | 0xa9))),
        0xef => !matches!((b.get(i + 1), b.get(i + 2)), (Some(0xbb), Some(0xbf))),
        _ => true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::dialect::Dialect;
    use crate::store::dialect::opendray_pg::rows::{Node, render_with};
    use crate::store::read::frontmatter::{Block, Fields, locate, parse_yaml};
    use proptest::prelude::*;
    use serde_json::{Map, Value, json};

    /// The table is one per process: the tests that hand over take turns.
    static SERIAL: Mutex<()> = Mutex::new(());

    fn node(id: &str, title: &str, body: &str, provenance: Value) -> Node {
        Node {
            id: id.into(),
            title: title.into(),
            body: body.into(),
            provenance,
            updated_at: "2026-01-02T00:00:00.123456Z".into(),
            ..crate::store::dialect::opendray_pg::rows::tests::sample()
        }
    }

    fn shapes() -> Vec<Node> {
        let mut v = vec![
            node("a", "PostgreSQL: dev", "The shared dev database.\n", json!({"source": "distiller", "aliases": ["dev-db"]})),
            node("b", "Zoë — 東京 🚀", "# Heading\n\n[[a]] and [x](b).\n", json!({"tags": ["x"], "n": [1, 2.5, -3]})),
            node("c", "yes", "", json!({"t": "true", "n": "1.0", "z": "null", "e": "", "q": "it's \"q\"", "h": "# c"})),
            node("d", "Two\nlines", "trailing   \n\n\n", json!({"m": "a\nb\n", "lead": "  x", "aliases": []})),
            node("e", "", "x", json!({"nested": {"a": {"b": null, "c": true}}, "big": 12345678901234567890u64})),
            node("f", "CR\rhere", "x", json!({"nel": "a\u{85}b"})),
            node("../odd id", "1.0", "x", json!({})),
        ];
        v[2].entity_type = None;
        v[2].kind = "fact".into();
        v[2].confidence = None;
        v[2].edges.clear();
        v[3].archived_at = Some("2026-02-01T00:00:00.000000Z".into());
        v[3].last_used_at = Some("2026-02-02T00:00:00.000000Z".into());
        v[3].use_count = 3;
        v[4].edges.push(("supersedes".into(), "a".into()));
        v[4].edges.push(("supersedes".into(), "e".into()));
        v
    }

    /// The loader's entities handed over from rows are the ones it parses from the same texts,
    /// and each is taken.
    #[test]
    fn handed_entities_load_as_the_rendering_parses() {
        let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join(super::super::mirror::MARKER), r#"{"database": "db", "archived": false}"#).unwrap();
        let dialect = super::super::OpendrayPg::open(root);
        let nodes = shapes();
        let files: Vec<(String, String)> = nodes.iter().map(|n| (n.path(), n.render())).collect();
        let as_json = |mut es: Vec<crate::store::model::entity::Entity>| {
            es.sort_by(|a, b| a.path.cmp(&b.path));
            serde_json::to_value(&es).unwrap()
        };
        let parsed = as_json(crate::store::read::load::read_held(&files, &dialect));
        let mut values = SharedValues::default();
        let handed: Vec<Handed> = nodes
            .iter()
            .zip(&files)
            .map(|(n, (rel, text))| {
                assert_eq!(render_with(&n.view(), &n.body), *text);
                Handed::new(&dialect, rel, text, n.view(), &mut values)
            })
            .collect();
        let given: Vec<bool> = handed.iter().map(|h| h.0.is_some()).collect();
        assert_eq!(given, [true, true, true, true, true, false, true], "which nodes' fields are handed over");
        hand_over(root, handed);
        let direct = as_json(crate::store::read::load::read_held(&files, &dialect));
        assert_eq!(direct, parsed);
        for (rel, text) in &files {
            assert!(take(root, rel, text).is_none(), "{rel} was not taken by the load");
        }
        assert!(dialect.in_memory());
    }

    /// A text other than the one the entities were made from is parsed.
    #[test]
    fn entities_are_given_only_for_their_own_text() {
        let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let root = Path::new("/nonexistent/folio-direct-test");
        let dialect = OpendrayPg::open(root);
        let n = node("a", "t", "b", json!({}));
        let text = n.render();
        let handed = || Handed::new(&dialect, &n.path(), &text, n.view(), &mut SharedValues::default());
        hand_over(root, vec![handed()]);
        assert!(take(root, &n.path(), &format!("{text}.")).is_none());
        assert!(take(root, &n.path(), &text).is_none(), "a mismatch drops the entities");
        hand_over(root, vec![handed()]);
        assert!(take(Path::new("/elsewhere"), &n.path(), &text).is_none());
        let e = take(root, &n.path(), &text).expect("handed over");
        assert_eq!(e[0].id, "a");
        assert!(take(root, &n.path(), &text).is_none(), "taken once");
        forget(root);
    }

    fn frontmatter_of(text: &str) -> Fields {
        let Block::Closed { inner, .. } = locate(text) else { panic!("{text}") };
        parse_yaml(&text[inner]).unwrap()
    }

    proptest! {
        /// The byte scan finds exactly the characters YAML escapes or folds.
        #[test]
        fn plain_text_is_the_characters_it_names(s in "(?s).{0,24}|\\PC{0,24}|[\u{0}-\u{ff}\u{2028}\u{2029}\u{feff}a]{0,24}") {
            let by_char = s.chars().all(|c| match c {
                '\n' | '\t' => true,
                '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}' => false,
                c => !c.is_control(),
            });
            prop_assert_eq!(plain_text(&s), by_char, "{:?}", s);
        }

        /// `reads_back` holds only where the YAML serde_yaml_ng writes parses back as the
        /// fields it was written from.
        #[test]
        fn what_reads_back_does(title in "(?s).{0,40}|\\PC{0,40}|[ -~\n\t]{0,40}", key in "[a-z:# -]{0,8}", value in "(?s).{0,20}|[ -~\n]{0,20}", n in any::<i64>(), x in any::<f64>()) {
            let mut p = Map::new();
            p.insert(key.clone(), json!(value));
            p.insert(format!("{key}n"), json!(n));
            if x.is_finite() {
                p.insert(format!("{key}x"), json!(x));
            }
            let node = node("p", &title, "body", json!({"k": p.clone(), "aliases": [value.clone()]}));
            let fields = node.view();
            if reads_back(&fields) {
                prop_assert_eq!(frontmatter_of(&node.render()), fields.into_fields());
            }
        }
    }
}
