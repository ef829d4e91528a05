//! A node's file text, as folio's review rules and editors leave it, back into the row:
//! which columns change, which edges and fact sources come and go. Columns opendray keeps
//! itself (its counters, `last_used_at`) are refused; `created_at`/`updated_at` are the
//! database's (`updated_at = now()` on every write). Every write also appends one entry to
//! `provenance.folio_history` — who, when, which decision — where opendray's operators read
//! the rest of a node's lineage.
use serde_json::{Map, Value, json};

use super::rows::Node;
use crate::store::dialect::opendray::EDGE_TYPES;
use crate::store::read::frontmatter::{self, Block};
use crate::store::write::audit::AuditEvent;

/// The provenance key folio logs its decisions under (a list, oldest first).
pub const HISTORY_KEY: &str = "folio_history";

/// What happens to `archived_at`.
#[derive(Debug, Clone, PartialEq)]
pub enum Archived {
    Keep,
    Clear,
    Now,
    At(String),
}

/// One row's update.
#[derive(Debug, Clone, PartialEq)]
pub struct Update {
    pub kind: String,
    pub entity_type: Option<String>,
    pub title: String,
    pub body: String,
    pub scope: String,
    pub scope_key: String,
    pub maturity: String,
    pub confidence: Option<f64>,
    pub enabled: bool,
    pub provenance: Value,
    pub archived: Archived,
    /// Whether the row's own columns change. A node whose file changed only in its edges or
    /// fact sources (a link repointed by a merge) keeps its row as it is: no `updated_at`, no
    /// history entry, only the edge rows change.
    pub row: bool,
    pub add_edges: Vec<(String, String)>,
    pub del_edges: Vec<(String, String)>,
    pub add_sources: Vec<String>,
    pub del_sources: Vec<String>,
}

/// The update that makes `old` read as `new` (None: the file leaves the view, which for a
/// database is opendray's soft archive), logged as `event` at `at`.
pub fn update(old: &Node, new: Option<&str>, event: &AuditEvent, at: &str) -> Result<Update, String> {
    let entry = json!({"at": at, "by": event.by, "event": event.verb, "summary": event.summary});
    let Some(text) = new else {
        if replaced_by_a_write(&old.provenance) {
            return Err(not_an_object(&old.provenance));
        }
        let mut p = object(&old.provenance);
        p.entry("archived_reason")
            .or_insert_with(|| json!(format!("{} by {}: {}", event.verb, event.by, event.summary)));
        return Ok(Update {
            provenance: with_history(p, &old.provenance, entry)?,
            archived: if old.archived_at.is_some() { Archived::Keep } else { Archived::Now },
            row: true,
            ..unchanged(old)
        });
    };
    let Block::Closed { inner, body_start, .. } = frontmatter::locate(text) else {
        return Err("the node's frontmatter is missing or not closed".into());
    };
    let f = frontmatter::parse_yaml(&text[inner]).map_err(|e| format!("frontmatter does not parse: {}", e.message))?;
    let s = |k: &str| f.get(k).filter(|v| !v.is_null()).map(frontmatter::scalar_text);
    for key in f.keys() {
        if !KNOWN.contains(&key.as_str()) {
            return Err(format!("opendray's knowledge_nodes has no column for `{key}`"));
        }
    }
    if s("id").as_deref() != Some(old.id.as_str()) {
        return Err(format!("`id` cannot change (the node is `{}`)", old.id));
    }
    for (key, now) in [
        ("use_count", Some(old.use_count.to_string())),
        ("success_count", Some(old.success_count.to_string())),
        ("failure_count", Some(old.failure_count.to_string())),
        ("last_used_at", old.last_used_at.clone()),
    ] {
        if s(key) != now {
            return Err(format!("`{key}` is counted by opendray; folio does not write it"));
        }
    }
    let aliases = f.get("aliases").filter(|a| a.is_array());
    let provenance = match f.get("provenance") {
        // A provenance that is not an object, shown as the row holds it, stays as it is (a
        // write that changes the row's columns is refused below).
        Some(p) if !old.provenance.is_object() && *p == old.provenance && aliases.is_none() => p.clone(),
        None | Some(Value::Null) => Value::Object(with_aliases(Map::new(), aliases)?),
        Some(Value::Object(p)) => Value::Object(with_aliases(p.clone(), aliases)?),
        Some(_) => return Err("`provenance` must be a mapping".into()),
    };
    let edges = relations(f.get("relations"))?;
    let sources = memory_ids(f.get("sources"))?;
    let confidence = match f.get("confidence") {
        // `double precision` holds NaN and ±infinity, which JSON (and so the rendering) shows as
        // `null`: a write that leaves the line keeps the row's value, not NULL.
        Some(Value::Null) if old.confidence.is_some_and(|c| !c.is_finite()) => old.confidence,
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_f64().ok_or("`confidence` must be a number")?),
    };
    let enabled = match f.get("enabled") {
        None => old.enabled,
        Some(v) => v.as_bool().ok_or("`enabled` must be true or false")?,
    };
    let archived = match (s("archived_at"), &old.archived_at) {
        (None, None) => Archived::Keep,
        (None, Some(_)) => Archived::Clear,
        (Some(_), None) => Archived::Now,
        (Some(new), Some(was)) if new == *was => Archived::Keep,
        (Some(new), Some(_)) => Archived::At(new),
    };
    let mut u = Update {
        kind: s("kind").ok_or("`kind` is required")?,
        entity_type: s("entity_type"),
        title: s("title").ok_or("`title` is required")?,
        body: text[body_start..].to_string(),
        scope: s("scope").unwrap_or_else(|| "project".into()),
        scope_key: s("scope_key").unwrap_or_default(),
        maturity: s("maturity").unwrap_or_else(|| "candidate".into()),
        confidence,
        enabled,
        provenance,
        archived,
        row: true,
        add_edges: edges.iter().filter(|e| !old.edges.contains(e)).cloned().collect(),
        del_edges: old.edges.iter().filter(|e| !edges.contains(e)).cloned().collect(),
        add_sources: sources.iter().filter(|s| !old.sources.contains(s)).cloned().collect(),
        del_sources: old.sources.iter().filter(|s| !sources.contains(s)).cloned().collect(),
    };
    // The confidence by its bits: a NaN kept as it was is no change.
    let bits = |c: Option<f64>| c.map(f64::to_bits);
    let columns = Update {
        add_edges: Vec::new(),
        del_edges: Vec::new(),
        add_sources: Vec::new(),
        del_sources: Vec::new(),
        confidence: None,
        ..u.clone()
    };
    if columns == (Update { row: true, confidence: None, ..unchanged(old) }) && bits(u.confidence) == bits(old.confidence) {
        u.row = false;
        u.provenance = old.provenance.clone();
    } else {
        if replaced_by_a_write(&old.provenance) {
            return Err(not_an_object(&old.provenance));
        }
        let p = match std::mem::take(&mut u.provenance) {
            Value::Object(p) => p,
            _ => Map::new(),
        };
        u.provenance = with_history(p, &old.provenance, entry)?;
    }
    Ok(u)
}

/// `p` with the node's aliases, a list the schema has no column for, kept in the provenance and
/// shown as a field of their own (`rows::Node::fields`); without that field, `p` as it is —
/// an `aliases` that is not a list is shown inside the provenance, as the row holds it, and a
/// write dropped it. A list that would replace such a value (a merge giving the node aliases)
/// is refused.
fn with_aliases(mut p: Map<String, Value>, aliases: Option<&Value>) -> Result<Map<String, Value>, String> {
    let Some(aliases) = aliases else { return Ok(p) };
    if let Some(why) = aliases_not_a_list(p.get("aliases")) {
        return Err(why);
    }
    p.insert("aliases".into(), aliases.clone());
    Ok(p)
}

/// Why aliases cannot be given to a node whose `provenance.aliases` is `held`: someone wrote it
/// as other than a list, which the node's list of aliases would replace. None when it is a list
/// or absent.
pub fn aliases_not_a_list(held: Option<&Value>) -> Option<String> {
    let held = held.filter(|v| !v.is_array())?;
    Some(format!(
        "the node's `provenance.aliases` is {}, not a list, and folio keeps the node's aliases there as one: that \
         would replace what is there",
        frontmatter::json_kind(held)
    ))
}

/// Whether a write, which records itself in the provenance, would replace what the agent wrote
/// there: anything but an object or `null`.
fn replaced_by_a_write(p: &Value) -> bool {
    !(p.is_object() || p.is_null())
}

/// Why a row whose provenance is not an object is not written: every write records itself in
/// the provenance (`folio_history`), which would replace what the agent wrote there.
fn not_an_object(p: &Value) -> String {
    format!(
        "the node's provenance is {}, not an object, and folio records every write in it (`{HISTORY_KEY}`): \
         that would replace what is there",
        frontmatter::json_kind(p)
    )
}

/// Keys a rendered node has (`rows::Node::render`).
const KNOWN: &[&str] = &[
    "id",
    "kind",
    "entity_type",
    "title",
    "scope",
    "scope_key",
    "maturity",
    "confidence",
    "enabled",
    "use_count",
    "success_count",
    "failure_count",
    "last_used_at",
    "created_at",
    "updated_at",
    "archived_at",
    "aliases",
    "sources",
    "relations",
    "provenance",
];

fn unchanged(old: &Node) -> Update {
    Update {
        kind: old.kind.clone(),
        entity_type: old.entity_type.clone(),
        title: old.title.clone(),
        body: old.body.clone(),
        scope: old.scope.clone(),
        scope_key: old.scope_key.clone(),
        maturity: old.maturity.clone(),
        confidence: old.confidence,
        enabled: old.enabled,
        provenance: old.provenance.clone(),
        archived: Archived::Keep,
        row: false,
        add_edges: Vec::new(),
        del_edges: Vec::new(),
        add_sources: Vec::new(),
        del_sources: Vec::new(),
    }
}

fn object(v: &Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    }
}

/// The history is the row's, whatever the text says (an undo's before-image lacks the
/// entry of the write it reverts), plus this write's entry.
fn with_history(mut p: Map<String, Value>, old: &Value, entry: Value) -> Result<Value, String> {
    if let Some(why) = history_not_a_list(old.get(HISTORY_KEY)) {
        return Err(why);
    }
    let mut history = match old.get(HISTORY_KEY) {
        Some(Value::Array(h)) => h.clone(),
        _ => Vec::new(),
    };
    history.push(entry);
    p.insert(HISTORY_KEY.into(), Value::Array(history));
    Ok(Value::Object(p))
}

/// Why a write cannot append to `history` (a provenance's `folio_history`): someone else wrote
/// it as something other than a list (`"imported from v1"`), which appending would replace and
/// no undo give back. None when it is a list, `null` or absent.
pub fn history_not_a_list(history: Option<&Value>) -> Option<String> {
    match history {
        None | Some(Value::Null | Value::Array(_)) => None,
        Some(other) => Some(format!(
            "the node's `provenance.{HISTORY_KEY}` is {}, not a list, and folio appends every write to it: that \
             would replace what is there",
            frontmatter::json_kind(other)
        )),
    }
}

/// A provenance written as a patch of its top-level keys (`provenance_patch`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProvenancePatch {
    /// Keys the update drops.
    pub removed: Vec<String>,
    /// Keys the update adds or changes, with their new values.
    pub set: Map<String, Value>,
    /// Entries appended to the row's own `folio_history` (None: the history is in `set`, or
    /// unchanged).
    pub appended: Option<Vec<Value>>,
}

/// What turns the provenance `old` (as folio read the row's) into `new`, key by key, so that
/// the server keeps every other key exactly as it holds it — including what folio cannot read
/// whole: JSON nested deeper than its parser goes (read as `{}`), numbers beyond an `f64`.
/// The history is appended to the row's, whatever folio read of it.
pub fn provenance_patch(old: &Value, new: &Value) -> ProvenancePatch {
    let old = object(old);
    let new = object(new);
    let mut patch = ProvenancePatch {
        removed: old.keys().filter(|k| !new.contains_key(*k)).cloned().collect(),
        ..ProvenancePatch::default()
    };
    for (k, v) in &new {
        if k == HISTORY_KEY {
            let before = match old.get(HISTORY_KEY) {
                None => Some(&[][..]),
                Some(Value::Array(h)) => Some(&h[..]),
                Some(_) => None,
            };
            match (before, v) {
                (Some(before), Value::Array(now)) if now.starts_with(before) => {
                    if now.len() > before.len() {
                        patch.appended = Some(now[before.len()..].to_vec());
                    }
                }
                _ => drop(patch.set.insert(k.clone(), v.clone())),
            }
        } else if old.get(k) != Some(v) {
            patch.set.insert(k.clone(), v.clone());
        }
    }
    patch
}

/// `relations:` as `(edge_type, dst)` pairs; a type outside opendray's vocabulary is refused
/// (the table's CHECK would refuse it).
/// The fact sources' memory ids exactly as written: opendray's table takes any text, and one
/// trimmed or dropped (`"  mem-x  "`, `""`) was a row deleted and another inserted by a
/// decision that never meant to touch them. A one-line `a, b` (a person's edit) is split.
fn memory_ids(v: Option<&Value>) -> Result<Vec<String>, String> {
    let items = match v {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(a)) => a.clone(),
        Some(Value::String(s)) => return Ok(frontmatter::split_commas(s)),
        Some(other) => vec![other.clone()],
    };
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    for item in &items {
        if item.is_object() || item.is_array() || item.is_null() {
            return Err("`sources` must be a list of memory ids".into());
        }
        let id = frontmatter::scalar_text(item);
        if !out.contains(&id) {
            out.push(id);
        }
    }
    Ok(out)
}

fn relations(v: Option<&Value>) -> Result<Vec<(String, String)>, String> {
    let Some(Value::Object(rel)) = v else {
        return match v {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(_) => Err("`relations` must be a mapping of edge type to node ids".into()),
        };
    };
    let mut out = Vec::new();
    for (kind, targets) in rel {
        if !EDGE_TYPES.contains(&kind.as_str()) {
            return Err(format!("edge type `{kind}` is not one of {}", EDGE_TYPES.join(", ")));
        }
        let list = match targets {
            Value::Array(a) => a.iter().map(frontmatter::scalar_text).collect(),
            other => vec![frontmatter::scalar_text(other)],
        };
        for t in list {
            let pair = (kind.clone(), t);
            if !out.contains(&pair) {
                out.push(pair);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node() -> Node {
        Node {
            id: "a".into(),
            kind: "playbook".into(),
            entity_type: None,
            title: "A".into(),
            body: "body\n".into(),
            scope: "project".into(),
            scope_key: "p".into(),
            maturity: "candidate".into(),
            confidence: None,
            provenance: json!({"source": "reflector"}),
            created_at: "2026-01-01T00:00:00.000000Z".into(),
            updated_at: "2026-01-01T00:00:00.000000Z".into(),
            archived_at: None,
            use_count: 3,
            last_used_at: None,
            enabled: true,
            success_count: 0,
            failure_count: 0,
            edges: vec![("uses".into(), "b".into())],
            sources: vec![],
            provenance_unreadable: None,
        }
    }

    fn event() -> AuditEvent {
        AuditEvent::new("review", "human:ann", "approved a")
    }

    #[test]
    fn unchanged_text_changes_nothing() {
        let n = node();
        let u = update(&n, Some(&n.render()), &event(), "T").unwrap();
        assert_eq!(u, unchanged(&n));
        assert!(!u.row);
    }

    /// Issue 39: a node whose only change is an edge (a merge repointed it) keeps its row.
    #[test]
    fn an_edge_alone_leaves_the_row() {
        let n = node();
        let u = update(&n, Some(&n.render().replace("uses:\n  - b", "uses:\n  - c")), &event(), "T").unwrap();
        assert!(!u.row);
        assert_eq!(u.provenance, n.provenance, "no history entry");
        assert_eq!((u.add_edges.len(), u.del_edges.len()), (1, 1));
        let changed = update(&n, Some(&n.render().replace("title: A", "title: B")), &event(), "T").unwrap();
        assert!(changed.row);
        assert_eq!(changed.provenance[HISTORY_KEY].as_array().map(Vec::len), Some(1));
    }

    #[test]
    fn edits_become_columns_edges_and_archive() {
        let n = node();
        let text = n
            .render()
            .replace("maturity: candidate", "maturity: fact")
            .replace("uses:\n  - b", "depends_on:\n  - c")
            .replace("---\nbody", "---\nnew body");
        let text = text.replacen("scope: project\n", "scope: project\narchived_at: x\n", 1);
        let u = update(&n, Some(&text), &event(), "T").unwrap();
        assert_eq!(u.maturity, "fact");
        assert_eq!(u.body, "new body\n");
        assert_eq!(u.add_edges, [("depends_on".to_string(), "c".to_string())]);
        assert_eq!(u.del_edges, [("uses".to_string(), "b".to_string())]);
        assert_eq!(u.archived, Archived::Now);
        let gone = update(&n, None, &event(), "T").unwrap();
        assert_eq!(gone.archived, Archived::Now);
        assert_eq!(gone.provenance["archived_reason"], "review by human:ann: approved a");
    }

    /// jsonb takes any JSON as a provenance: what is not an object is shown as it is, kept by a
    /// write that leaves the row's columns (an edge a merge repointed), and never replaced by
    /// one that changes them. `null` holds nothing to lose.
    #[test]
    fn a_provenance_that_is_not_an_object_is_kept_or_the_write_refused() {
        for p in [json!("imported from the ops wiki"), json!(["run-1", "run-2"]), json!(7), json!(false)] {
            let n = Node { provenance: p.clone(), ..node() };
            let text = n.render();
            assert!(text.contains("provenance:"), "{text}");
            let u = update(&n, Some(&text), &event(), "T").unwrap();
            assert_eq!(u, unchanged(&n), "{p}");
            let moved = update(&n, Some(&text.replace("uses:\n  - b", "uses:\n  - c")), &event(), "T").unwrap();
            assert!(!moved.row, "{p}: an edge alone");
            assert_eq!(moved.provenance, p);
            let kind = frontmatter::json_kind(&p);
            let refused = |why: String| {
                assert!(why.starts_with(&format!("the node's provenance is {kind}, not an object")), "{p}: {why}");
            };
            refused(update(&n, Some(&text.replace("title: A", "title: B")), &event(), "T").unwrap_err());
            refused(update(&n, None, &event(), "T").unwrap_err());
            let aliased = text.replacen("title: A\n", "title: A\naliases:\n- b\n", 1);
            assert!(update(&n, Some(&aliased), &event(), "T").is_err(), "{p}: aliases live in the provenance");
        }
        let n = Node { provenance: Value::Null, ..node() };
        assert!(n.render().contains("provenance: null"), "{}", n.render());
        assert_eq!(update(&n, Some(&n.render()), &event(), "T").unwrap(), unchanged(&n));
        let changed = update(&n, Some(&n.render().replace("title: A", "title: B")), &event(), "T").unwrap();
        assert_eq!(changed.provenance[HISTORY_KEY].as_array().map(Vec::len), Some(1));
    }

    /// opendray's `knowledge_fact_sources.memory_id` takes any text: a decision keeps each as
    /// the table has it (they were trimmed, and an empty one dropped: rows deleted and inserted).
    #[test]
    fn fact_sources_are_kept_exactly() {
        let n = Node { sources: vec!["".into(), "  mem-x  ".into(), "123".into(), "null".into()], ..node() };
        let u = update(&n, Some(&n.render()), &event(), "T").unwrap();
        assert_eq!((u.add_sources.len(), u.del_sources.len()), (0, 0), "{}", n.render());
        let approved = update(&n, Some(&n.render().replace("maturity: candidate", "maturity: fact")), &event(), "T");
        let approved = approved.unwrap();
        assert!(approved.row && approved.add_sources.is_empty() && approved.del_sources.is_empty());
        let edited = n.render().replace("sources:\n", "sources:\n- mem-z\n");
        assert_eq!(update(&n, Some(&edited), &event(), "T").unwrap().add_sources, ["mem-z"]);
    }

    /// A confidence of NaN or ±infinity (a `double precision` takes them) shows as `null`, and a
    /// write that leaves that line keeps the row's value: an approval set it to NULL.
    #[test]
    fn a_confidence_json_cannot_hold_is_kept() {
        for c in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let n = Node { confidence: Some(c), ..node() };
            let text = n.render();
            assert!(text.contains("confidence: null"), "{text}");
            let u = update(&n, Some(&text), &event(), "T").unwrap();
            assert!(!u.row, "{c}: unchanged");
            let u = update(&n, Some(&text.replace("maturity: candidate", "maturity: fact")), &event(), "T").unwrap();
            assert_eq!(u.confidence.map(f64::to_bits), Some(c.to_bits()), "{c}: kept");
            let u = update(&n, Some(&text.replace("confidence: null", "confidence: 0.5")), &event(), "T").unwrap();
            assert_eq!(u.confidence, Some(0.5), "a person's edit is written");
        }
    }

    /// Text columns take any string, and every decision writes the row's columns back from its
    /// rendering: each value YAML could read as something else (`null`, `~`, `yes`, `0x1F`,
    /// `.nan`, a date, a newline, a BOM, an indicator character) must come back as the row
    /// holds it, or an approval would rewrite it.
    #[test]
    fn every_odd_column_value_reads_back_as_the_row_holds_it() {
        let odd = [
            "", " ", "  lead", "trail  ", "null", "NULL", "~", "true", "False", "yes", "off", "y", "123", "-0", "+1",
            "007", ".5", "1e3", "0x1F", "0o17", "1_000", ".inf", "-.inf", ".nan", "2026-01-01", "12:30", "a: b", "- x",
            "#c", "a #c", "'q'", "\"q\"", "|", ">", "*a", "&a", "!t", "%x", "@x", "`x", "{a}", "[a]", "? x", "<<", "a\nb",
            "a\n", "\n\na", "a\r\nb", "\r", "\t", "\u{feff}x", "\u{85}", "\u{2028}", "\u{1}", "\u{7f}", "\u{a0}", "😀",
            "---", "...", "a\n---\nb", "\\",
        ];
        for v in odd {
            for column in ["kind", "entity_type", "title", "scope", "scope_key", "maturity", "body", "source", "provenance"] {
                let mut n = Node { edges: Vec::new(), confidence: Some(0.1), entity_type: Some("service".into()), ..node() };
                match column {
                    "kind" => n.kind = v.into(),
                    "entity_type" => n.entity_type = Some(v.into()),
                    "title" => n.title = v.into(),
                    "scope" => n.scope = v.into(),
                    "scope_key" => n.scope_key = v.into(),
                    "maturity" => n.maturity = v.into(),
                    "body" => n.body = v.into(),
                    "source" => n.sources = vec![v.into()],
                    _ => n.provenance = json!({"note": v, v: 1}),
                }
                let text = n.render();
                let u = update(&n, Some(&text), &event(), "T").unwrap_or_else(|e| panic!("{column} = {v:?}: {e}\n{text}"));
                assert!(!u.row && u.add_sources.is_empty() && u.del_sources.is_empty(), "{column} = {v:?}:\n{text}");
            }
        }
        for c in [0.1, -0.0, 1e300, 5e-324, 0.30000000000000004, f64::MAX] {
            let n = Node { confidence: Some(c), ..node() };
            assert!(!update(&n, Some(&n.render()), &event(), "T").unwrap().row, "confidence {c:?}");
        }
    }

    /// A `folio_history` someone else wrote as other than a list is never replaced by the
    /// entry a write appends; `null` takes a list.
    #[test]
    fn a_history_that_is_not_a_list_is_refused() {
        for (history, refused) in [(json!("imported from v1"), true), (json!({"a": 1}), true), (json!(null), false)] {
            let n = Node { provenance: json!({"source": "x", HISTORY_KEY: history}), ..node() };
            let edited = n.render().replace("maturity: candidate", "maturity: fact");
            let write = update(&n, Some(&edited), &event(), "T");
            let archive = update(&n, None, &event(), "T");
            assert_eq!((write.is_err(), archive.is_err()), (refused, refused), "{history}");
            if let Err(why) = write {
                assert!(why.contains("`provenance.folio_history` is a") && why.contains("not a list"), "{why}");
            }
        }
        let n = Node { provenance: json!({HISTORY_KEY: "imported"}), ..node() };
        assert!(!update(&n, Some(&n.render()), &event(), "T").unwrap().row, "a write that leaves the row is no write");
    }

    /// `provenance.aliases` as the row holds it: a list is the node's `aliases:` field, anything
    /// else stays inside the provenance. A write dropped anything but a non-empty list (even a
    /// write leaving the text as it was, such as a merge moving an edge, wrote the row).
    #[test]
    fn aliases_that_are_not_a_list_are_kept() {
        for held in [json!("pg"), json!([]), json!(["x"]), json!(null), json!({"k": 1}), json!(3)] {
            let n = Node { provenance: json!({"source": "s", "aliases": held}), ..node() };
            let text = n.render();
            assert!(!update(&n, Some(&text), &event(), "T").unwrap().row, "{held}: unchanged\n{text}");
            let edited = text.replace("maturity: candidate", "maturity: fact");
            let u = update(&n, Some(&edited), &event(), "T").unwrap();
            assert_eq!(u.provenance.get("aliases"), Some(&held), "{held}: kept by a write");
        }
        let n = Node { provenance: json!({"aliases": "pg"}), ..node() };
        let merged = n.render().replace("title: A\n", "title: A\naliases:\n- B\n");
        let why = update(&n, Some(&merged), &event(), "T").unwrap_err();
        assert!(why.contains("`provenance.aliases` is a string, not a list"), "{why}");
        let n = Node { provenance: json!({"aliases": ["x"]}), ..node() };
        let dropped = n.render().replace("aliases:\n- x\n", "");
        assert_eq!(update(&n, Some(&dropped), &event(), "T").unwrap().provenance.get("aliases"), None, "removed");
    }

    #[test]
    fn what_opendray_keeps_is_refused() {
        let n = node();
        let e = |t: String| update(&n, Some(&t), &event(), "T").unwrap_err();
        assert!(e(n.render().replace("use_count: 3", "use_count: 4")).contains("counted by opendray"));
        assert!(e(n.render().replace("id: a", "id: z")).contains("`id` cannot change"));
        assert!(e(n.render().replace("title: A", "title: A\ncolour: red")).contains("no column for `colour`"));
        assert!(e(n.render().replace("uses:", "likes:")).contains("edge type `likes`"));
    }

    #[test]
    fn a_provenance_is_patched_by_the_keys_that_change() {
        let old = json!({"source": "distiller", "keep": {"deep": [1, 2]}, "gone": 1, "folio_history": [{"n": 1}]});
        let new = json!({"source": "reviewer", "keep": {"deep": [1, 2]}, "added": true, "folio_history": [{"n": 1}, {"n": 2}]});
        let p = provenance_patch(&old, &new);
        assert_eq!(p.removed, vec!["gone".to_string()]);
        assert_eq!(Value::Object(p.set), json!({"source": "reviewer", "added": true}));
        assert_eq!(p.appended, Some(vec![json!({"n": 2})]));
        // Read as `{}` (too deep for the parser): only what the update adds, the history appended.
        let p = provenance_patch(&json!({}), &json!({"folio_history": [{"n": 1}]}));
        assert!(p.removed.is_empty() && p.set.is_empty());
        assert_eq!(p.appended, Some(vec![json!({"n": 1})]));
        // A history that is not a list, or one the update rewrites, is set whole.
        let p = provenance_patch(&json!({"folio_history": "odd"}), &json!({"folio_history": [{"n": 1}]}));
        assert_eq!(Value::Object(p.set), json!({"folio_history": [{"n": 1}]}));
        assert_eq!(p.appended, None);
        let p = provenance_patch(&json!({"folio_history": [{"n": 1}]}), &json!({"folio_history": [{"n": 9}]}));
        assert_eq!(Value::Object(p.set), json!({"folio_history": [{"n": 9}]}));
        // Nothing changed: nothing written.
        assert_eq!(provenance_patch(&old, &old), ProvenancePatch::default());
    }
}
