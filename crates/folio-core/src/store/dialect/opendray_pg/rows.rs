//! Rows as folio reads them: a node with its outgoing edges and fact sources, rendered as
//! the markdown export writes a node (docs/opendray-export.md) so that every reader, lint
//! rule and review rule of the export works on it unchanged. The rendering is a pure
//! function of the rows: its digest is the optimistic check of every write.
use std::borrow::Cow;
use std::collections::HashMap;

use postgres::GenericClient;
use serde_json::{Number, Value, json};

use crate::store::read::frontmatter::view::{Val, View};

/// One `knowledge_nodes` row (less its embedding) with its edges and sources.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub id: String,
    pub kind: String,
    pub entity_type: Option<String>,
    pub title: String,
    pub body: String,
    pub scope: String,
    pub scope_key: String,
    pub maturity: String,
    pub confidence: Option<f64>,
    pub provenance: Value,
    pub created_at: String,
    pub updated_at: String,
    pub archived_at: Option<String>,
    pub use_count: i32,
    pub last_used_at: Option<String>,
    pub enabled: bool,
    pub success_count: i32,
    pub failure_count: i32,
    /// `(edge_type, dst_id)`, sorted.
    pub edges: Vec<(String, String)>,
    /// `memory_id`s, sorted.
    pub sources: Vec<String>,
    /// Why `provenance` could not be read, when it could not (it is then `{}`): JSON nested
    /// deeper than the parser goes, a number beyond an `f64`. Such a row is never written.
    pub provenance_unreadable: Option<String>,
}

/// The node columns, in `node`'s order. Timestamps are sent as they are stored and shown as
/// UTC text with microseconds here (`timestamp`), exact, so a rendering changes whenever the
/// row's `updated_at` does.
macro_rules! columns {
    () => {
        "id, kind, entity_type, title, body, scope, scope_key, maturity, confidence, provenance::text, created_at, \
        updated_at, archived_at, use_count, last_used_at, enabled, success_count, failure_count"
    };
}

/// How many `columns!` there are: a query's next column is at this index.
const COLUMN_COUNT: usize = 18;

const SELECT: &str = concat!("SELECT ", columns!(), " FROM knowledge_nodes");

/// A node from its row; a column of another type than opendray's schema gives (which
/// `schema::check` refuses first) is an error, not a panic.
fn node(r: &postgres::Row) -> Result<Node, postgres::Error> {
    use super::timestamp::UtcText;
    let provenance: Option<String> = r.try_get(9)?;
    let (provenance, provenance_unreadable) = match provenance.as_deref().map(serde_json::from_str::<Value>) {
        None => (json!({}), None),
        Some(Ok(v)) => (v, None),
        Some(Err(e)) => (json!({}), Some(e.to_string())),
    };
    let at = |i: usize| r.try_get::<_, UtcText>(i).map(|t| t.0);
    let maybe_at = |i: usize| r.try_get::<_, Option<UtcText>>(i).map(|t| t.map(|t| t.0));
    Ok(Node {
        id: r.try_get(0)?,
        kind: r.try_get(1)?,
        entity_type: r.try_get(2)?,
        title: r.try_get(3)?,
        body: r.try_get(4)?,
        scope: r.try_get(5)?,
        scope_key: r.try_get(6)?,
        maturity: r.try_get(7)?,
        confidence: r.try_get(8)?,
        provenance,
        created_at: at(10)?,
        updated_at: at(11)?,
        archived_at: maybe_at(12)?,
        use_count: r.try_get(13)?,
        last_used_at: maybe_at(14)?,
        enabled: r.try_get(15)?,
        success_count: r.try_get(16)?,
        failure_count: r.try_get(17)?,
        edges: Vec::new(),
        sources: Vec::new(),
        provenance_unreadable,
    })
}

/// A whole table as a set: its row count and the XOR of a 64-bit hash of each row's key —
/// for nodes the id with the row's `xmin` (PostgreSQL gives a row a new `xmin` on every
/// UPDATE, whoever makes it and whether or not it bumps `updated_at`: opendray archives
/// without), for edges and fact sources the columns a node renders of them. Equal sums
/// mean the same rows (bar a 64-bit collision); a frozen row (VACUUM FREEZE) changes its
/// `xmin` and so the sum once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TableSum {
    pub rows: i64,
    pub xor: i64,
}

/// The three tables' sums, read in one query: the server scans, no row is sent
/// (docs/benchmarks.md, "opendray figures"). When they equal the ones the snapshot last took,
/// nothing changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tables {
    pub nodes: TableSum,
    pub edges: TableSum,
    pub sources: TableSum,
}

pub fn tables(c: &mut impl GenericClient) -> Result<Tables, postgres::Error> {
    let r = c.query_one(
        "SELECT (SELECT count(*) FROM knowledge_nodes), \
                (SELECT coalesce(bit_xor(hashtextextended(id || ' ' || xmin::text, 0)), 0) FROM knowledge_nodes), \
                (SELECT count(*) FROM knowledge_edges), \
                (SELECT coalesce(bit_xor(hashtextextended(src_id || ' ' || edge_type || ' ' || dst_id, 0)), 0) \
                   FROM knowledge_edges), \
                (SELECT count(*) FROM knowledge_fact_sources), \
                (SELECT coalesce(bit_xor(hashtextextended(node_id || ' ' || memory_id, 0)), 0) \
                   FROM knowledge_fact_sources)",
        &[],
    )?;
    let sum = |i: usize| TableSum { rows: r.get(i), xor: r.get(i + 1) };
    Ok(Tables { nodes: sum(0), edges: sum(2), sources: sum(4) })
}

/// A node's version as the snapshot keeps it: its row's `xmin`, and a hash of the set of its
/// edges and of its fact sources (what it renders of them: type and target; memory id).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Version {
    pub xmin: u64,
    pub edges: u64,
    pub sources: u64,
}

/// Per node id, a hash of a set of rows (`sets`); a node without any is
/// not there (0). foldhash: the keys are node ids, 100k of them.
pub type Sets = HashMap<String, u64, foldhash::fast::RandomState>;

/// Each visible node's id and `xmin`. Reading `xmin` touches no column, so no body is read
/// or detoasted.
pub fn xmins(c: &mut impl GenericClient, archived: bool) -> Result<Vec<(String, u64)>, postgres::Error> {
    let rows = c.query("SELECT id, xmin::text FROM knowledge_nodes WHERE ($1 OR archived_at IS NULL)", &[&archived])?;
    Ok(rows.iter().map(|r| (r.get(0), r.get::<_, &str>(1).parse().unwrap_or(u64::MAX))).collect())
}

/// What a node renders of rows of another table, grouped by node (`sets`).
#[derive(Debug, Clone, Copy)]
pub enum Part {
    /// Its edges: type and target.
    Edges,
    /// Its fact sources: memory id.
    Sources,
}

/// Each node's set of edges or fact sources as a count and an XOR of 64-bit hashes (their
/// keys make them unique), of every node or of these. The server groups; joining the three
/// scans there costs it more than the scans do, so they are joined here.
pub fn sets(c: &mut impl GenericClient, part: Part, only: Option<&[String]>) -> Result<Sets, postgres::Error> {
    let (select, key) = match part {
        Part::Edges => (
            "SELECT src_id, count(*), bit_xor(hashtextextended(edge_type || ' ' || dst_id, 0)) FROM knowledge_edges",
            "src_id",
        ),
        Part::Sources => {
            ("SELECT node_id, count(*), bit_xor(hashtextextended(memory_id, 0)) FROM knowledge_fact_sources", "node_id")
        }
    };
    let rows = match only {
        Some(ids) => c.query(&format!("{select} WHERE {key} = ANY($1) GROUP BY {key}"), &[&ids])?,
        None => c.query(&format!("{select} GROUP BY {key}"), &[])?,
    };
    Ok(rows.iter().map(|r| (r.get(0), mix(r.get::<_, i64>(1) as u64, r.get::<_, i64>(2) as u64))).collect())
}

/// Two 64-bit values into one (splitmix64's finaliser over a rotate-xor): stable across
/// builds and platforms, as the snapshot keeps it.
fn mix(a: u64, b: u64) -> u64 {
    let mut z = a.rotate_left(29) ^ b.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// One node's part of the tables' sums (`tables`) and its version (`Version`), as a
/// transaction sees them: a decision reads it before and after writing a node, and the
/// snapshot takes the new version and the sums moved by the difference (no table scanned).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Stamp {
    pub xmin: u64,
    /// Its term in the nodes' sum (0 when there is no such row).
    pub node: i64,
    /// Edges from it: count, their hashes as the version mixes them, as the table's sum does.
    pub edges: (i64, i64, i64),
    /// Its fact sources, the same way.
    pub sources: (i64, i64, i64),
    pub exists: bool,
}

impl Stamp {
    pub fn version(&self) -> Version {
        let set = |(n, x, _): (i64, i64, i64)| if n == 0 { 0 } else { mix(n as u64, x as u64) };
        Version { xmin: self.xmin, edges: set(self.edges), sources: set(self.sources) }
    }
}

/// The `Stamp` of node `id`. One query.
pub fn stamp(c: &mut impl GenericClient, id: &str) -> Result<Stamp, postgres::Error> {
    let r = c.query_one(
        "SELECT (SELECT xmin::text FROM knowledge_nodes WHERE id = $1), \
                (SELECT hashtextextended(id || ' ' || xmin::text, 0) FROM knowledge_nodes WHERE id = $1), \
                (SELECT count(*) FROM knowledge_edges WHERE src_id = $1), \
                (SELECT coalesce(bit_xor(hashtextextended(edge_type || ' ' || dst_id, 0)), 0) \
                   FROM knowledge_edges WHERE src_id = $1), \
                (SELECT coalesce(bit_xor(hashtextextended(src_id || ' ' || edge_type || ' ' || dst_id, 0)), 0) \
                   FROM knowledge_edges WHERE src_id = $1), \
                (SELECT count(*) FROM knowledge_fact_sources WHERE node_id = $1), \
                (SELECT coalesce(bit_xor(hashtextextended(memory_id, 0)), 0) \
                   FROM knowledge_fact_sources WHERE node_id = $1), \
                (SELECT coalesce(bit_xor(hashtextextended(node_id || ' ' || memory_id, 0)), 0) \
                   FROM knowledge_fact_sources WHERE node_id = $1)",
        &[&id],
    )?;
    let xmin: Option<String> = r.get(0);
    Ok(Stamp {
        xmin: xmin.as_deref().map_or(0, |x| x.parse().unwrap_or(u64::MAX)),
        node: r.get::<_, Option<i64>>(1).unwrap_or(0),
        edges: (r.get(2), r.get(3), r.get(4)),
        sources: (r.get(5), r.get(6), r.get(7)),
        exists: xmin.is_some(),
    })
}

/// The nodes with these ids, with their edges and sources.
pub fn by_ids(c: &mut impl GenericClient, ids: &[String]) -> Result<Vec<Node>, postgres::Error> {
    let sql = format!("{SELECT} WHERE id = ANY($1) ORDER BY id");
    let mut nodes: Vec<Node> = c.query(&sql, &[&ids])?.iter().map(node).collect::<Result<_, _>>()?;
    let at: HashMap<String, usize> = nodes.iter().enumerate().map(|(i, n)| (n.id.clone(), i)).collect();
    let edges = "SELECT src_id, edge_type, dst_id FROM knowledge_edges WHERE src_id = ANY($1) ORDER BY 1, 2, 3";
    for r in c.query(edges, &[&ids])? {
        if let Some(&i) = at.get(r.get::<_, &str>(0)) {
            nodes[i].edges.push((r.get(1), r.get(2)));
        }
    }
    let sources = "SELECT node_id, memory_id FROM knowledge_fact_sources WHERE node_id = ANY($1) ORDER BY 1, 2";
    for r in c.query(sources, &[&ids])? {
        if let Some(&i) = at.get(r.get::<_, &str>(0)) {
            nodes[i].sources.push(r.get(1));
        }
    }
    Ok(nodes)
}

/// Every visible node (archived ones too with `archived`) with its edges and sources and its
/// version (as `xmins` and `sets` give it in the same transaction), handed
/// to `each` in chunks of `chunk` as the rows arrive, in no order: a first open's fetch. Unlike
/// `by_ids` it sends no list of ids and asks for no order, so the server scans the table once
/// instead of matching 100k ids and sorting every row with its body, and the caller renders a
/// chunk while the next is on the wire (docs/benchmarks.md, "Round: issue 43 (ninth session:
/// the first open)"). The versions come with the rows: the server hashes each edge and source
/// as it sends it, and no table is scanned again for `xmins` and `sets`. Stops early, without
/// error, when `each` returns false.
pub fn each_visible(
    c: &mut impl GenericClient,
    archived: bool,
    chunk: usize,
    mut each: impl FnMut(Vec<(Node, Version)>) -> bool,
) -> Result<(), postgres::Error> {
    let mut failed = None;
    each_arrived(c, archived, chunk, |rows| match rows.into_iter().map(Arrived::decode).collect() {
        Ok(nodes) => each(nodes),
        Err(e) => {
            failed = Some(e);
            false
        }
    })?;
    failed.map_or(Ok(()), Err)
}

/// A node's rows of another table, in order, and their count and XOR as `sets` takes them.
struct Grouped<T> {
    rows: Vec<T>,
    xor: i64,
}

impl<T> Grouped<T> {
    fn set(&self) -> u64 {
        mix(self.rows.len() as u64, self.xor as u64)
    }
}

type ById<T> = HashMap<String, Grouped<T>, foldhash::fast::RandomState>;

fn add<T>(by: &mut ById<T>, id: &str, row: T, hash: i64) {
    match by.get_mut(id) {
        Some(g) => {
            g.rows.push(row);
            g.xor ^= hash;
        }
        None => drop(by.insert(id.to_string(), Grouped { rows: vec![row], xor: hash })),
    }
}

/// A visible node's row as it arrived, with its edges and sources: decoded (`decode`) by the
/// thread that makes it an entity, so that its strings are allocated and freed by one thread
/// (freed by another, every free of a large string waits on the allocating thread's arena:
/// docs/benchmarks.md, "Twenty-ninth session").
pub struct Arrived {
    row: postgres::Row,
    edges: Option<Grouped<(String, String)>>,
    sources: Option<Grouped<String>>,
}

impl Arrived {
    pub fn decode(self) -> Result<(Node, Version), postgres::Error> {
        self.decode_keeping_row().map(|(n, v, _)| (n, v))
    }

    /// `decode`, and the row given back for the thread that received it to free: its buffers
    /// were allocated there, and freeing them elsewhere waits on that thread's arena while it
    /// receives the next rows (docs/benchmarks.md, "Thirty-fourth session").
    pub fn decode_keeping_row(self) -> Result<(Node, Version, postgres::Row), postgres::Error> {
        let mut n = node(&self.row)?;
        let xmin = self.row.try_get::<_, &str>(COLUMN_COUNT)?.parse().unwrap_or(u64::MAX);
        let mut v = Version { xmin, ..Version::default() };
        if let Some(g) = self.edges {
            v.edges = g.set();
            n.edges = g.rows;
        }
        if let Some(g) = self.sources {
            v.sources = g.set();
            n.sources = g.rows;
        }
        Ok((n, v, self.row))
    }
}

/// `each_visible`'s rows as they arrive, not yet decoded (`Arrived::decode`).
pub fn each_arrived(
    c: &mut impl GenericClient,
    archived: bool,
    chunk: usize,
    mut each: impl FnMut(Vec<Arrived>) -> bool,
) -> Result<(), postgres::Error> {
    use postgres::fallible_iterator::FallibleIterator;
    // Grouped by node here, in the order `by_ids` gives them (sorted); the edges and sources
    // of nodes not shown are never looked up.
    let mut edges: ById<(String, String)> = HashMap::default();
    let sql = "SELECT src_id, edge_type, dst_id, hashtextextended(edge_type || ' ' || dst_id, 0) \
        FROM knowledge_edges ORDER BY 1, 2, 3";
    for r in c.query(sql, &[])? {
        add(&mut edges, r.get(0), (r.get(1), r.get(2)), r.get(3));
    }
    let mut sources: ById<String> = HashMap::default();
    let sql = "SELECT node_id, memory_id, hashtextextended(memory_id, 0) FROM knowledge_fact_sources ORDER BY 1, 2";
    for r in c.query(sql, &[])? {
        add(&mut sources, r.get(0), r.get(1), r.get(2));
    }
    let sql = concat!("SELECT ", columns!(), ", xmin::text FROM knowledge_nodes WHERE ($1 OR archived_at IS NULL)");
    let mut rows = c.query_raw(sql, [&archived as &(dyn postgres::types::ToSql + Sync)])?;
    let mut batch = Vec::with_capacity(chunk);
    while let Some(row) = rows.next()? {
        let id: &str = row.try_get(0)?;
        let (edges, sources) = (edges.remove(id), sources.remove(id));
        batch.push(Arrived { row, edges, sources });
        if batch.len() == chunk && !each(std::mem::replace(&mut batch, Vec::with_capacity(chunk))) {
            return Ok(());
        }
    }
    if !batch.is_empty() {
        each(batch);
    }
    Ok(())
}

/// One node, locked for this transaction (`FOR UPDATE`), or None when there is no such row.
pub fn locked(c: &mut impl GenericClient, id: &str) -> Result<Option<Node>, postgres::Error> {
    let sql = format!("{SELECT} WHERE id = $1 FOR UPDATE");
    let Some(row) = c.query_opt(&sql, &[&id])? else { return Ok(None) };
    let mut n = node(&row)?;
    let edges = c.query("SELECT edge_type, dst_id FROM knowledge_edges WHERE src_id = $1 ORDER BY 1, 2", &[&id])?;
    n.edges = edges.iter().map(|r| (r.get(0), r.get(1))).collect();
    let sources = c.query("SELECT memory_id FROM knowledge_fact_sources WHERE node_id = $1 ORDER BY 1", &[&id])?;
    n.sources = sources.iter().map(|r| r.get(0)).collect();
    Ok(Some(n))
}

impl Node {
    /// The node as an export file: YAML frontmatter of its columns, then its body.
    /// `provenance.aliases` is shown as `aliases` (the schema has no column for them).
    pub fn render(&self) -> String {
        render_with(&self.view(), &self.body)
    }

    /// The frontmatter's fields, in the order the export writes them: what parsing the
    /// rendering's YAML back gives (`direct`), and what `render` writes.
    pub fn view(&self) -> View<'static> {
        Node { body: String::new(), ..self.clone() }.into_view().0
    }

    /// `view` and the body, the columns moved rather than copied, and the keys not allocated:
    /// a first open makes 100k of them, and a `serde_json` map of each (a `String` per key,
    /// SipHash in its index) was a tenth of it (docs/benchmarks.md, "Thirty-fourth session").
    pub fn into_view(self) -> (View<'static>, String) {
        let Node {
            id,
            kind,
            entity_type,
            title,
            body,
            scope,
            scope_key,
            maturity,
            confidence,
            provenance,
            created_at,
            updated_at,
            archived_at,
            use_count,
            last_used_at,
            enabled,
            success_count,
            failure_count,
            edges,
            sources,
            provenance_unreadable: _,
        } = self;
        let text = |s: String| Val::Str(Cow::Owned(s));
        let mut m = View::with_capacity(20);
        let mut put = |k: &'static str, v: Val<'static>| {
            let added = m.insert(k, v);
            debug_assert!(added, "{k} twice");
        };
        put("id", text(id));
        put("kind", text(kind));
        if let Some(t) = entity_type {
            put("entity_type", text(t));
        }
        put("title", text(title));
        put("scope", text(scope));
        if !scope_key.is_empty() {
            put("scope_key", text(scope_key));
        }
        put("maturity", text(maturity));
        if let Some(c) = confidence {
            // As `json!` makes a float: a value JSON has no number for is null.
            put("confidence", Number::from_f64(c).map_or(Val::Null, Val::Num));
        }
        put("enabled", Val::Bool(enabled));
        put("use_count", Val::Num(use_count.into()));
        put("success_count", Val::Num(success_count.into()));
        put("failure_count", Val::Num(failure_count.into()));
        if let Some(t) = last_used_at {
            put("last_used_at", text(t));
        }
        put("created_at", text(created_at));
        put("updated_at", text(updated_at));
        if let Some(t) = archived_at {
            put("archived_at", text(t));
        }
        // A provenance that is not an object (jsonb takes a string, a list, `null`) is shown as
        // the agent wrote it: the reviewer reads it, and a write compares it.
        let provenance = match provenance {
            Value::Object(mut p) => {
                // A list of aliases is the node's own field; any other `aliases` stays where the
                // row holds it, inside the provenance.
                if p.get("aliases").is_some_and(Value::is_array)
                    && let Some(a) = p.remove("aliases")
                {
                    put("aliases", Val::from_json(a));
                }
                Val::Map(View::from_fields(p))
            }
            other => Val::from_json(other),
        };
        if !sources.is_empty() {
            put("sources", Val::List(sources.into_iter().map(text).collect()));
        }
        if !edges.is_empty() {
            // Grouped by type in the order each type first comes (the edges are sorted).
            let mut groups: Vec<(String, Vec<Val<'static>>)> = Vec::new();
            for (t, dst) in edges {
                match groups.iter_mut().find(|(k, _)| *k == t) {
                    Some((_, l)) => l.push(text(dst)),
                    None => groups.push((t, vec![text(dst)])),
                }
            }
            let mut rel = View::with_capacity(groups.len());
            for (t, l) in groups {
                rel.insert(t, Val::List(l));
            }
            put("relations", Val::Map(rel));
        }
        put("provenance", provenance);
        (m, body)
    }

    /// Where the export would put the node's file (its path in the snapshot and the store).
    pub fn path(&self) -> String {
        path_of(&self.kind, self.entity_type.as_deref(), &self.id)
    }
}

/// An export file of these frontmatter fields (`Node::view`) and this body.
pub fn render_with(fields: &View, body: &str) -> String {
    // The common shapes written directly (`yaml`), the same bytes serde_yaml_ng writes.
    let yaml = super::yaml::write(fields)
        .unwrap_or_else(|| serde_yaml_ng::to_string(&fields.clone().into_fields()).unwrap_or_default());
    // Made at its length: the snapshot keeps every node's text, and `format!` grew each by
    // doubling, a third more memory on a first open (docs/benchmarks.md, "Thirty-third session").
    let mut text = String::with_capacity(8 + yaml.len() + body.len());
    for part in ["---\n", &yaml, "---\n", body] {
        text.push_str(part);
    }
    text
}

/// `entities/<entity_type>/<id>.md`, `playbooks/<id>.md`, …; an id that is not a plain file
/// name is made one (its other characters as `_`) and told apart by a digest.
pub fn path_of(kind: &str, entity_type: Option<&str>, id: &str) -> String {
    let plain = !id.is_empty()
        && !id.starts_with('.')
        && id.len() <= 120
        && id.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'));
    let odd_name;
    let name = if plain {
        id
    } else {
        let cleaned: String = id
            .chars()
            .take(80)
            .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '-') { c } else { '_' })
            .collect();
        let d = crate::store::model::digest::of(id.as_bytes());
        odd_name = format!("{cleaned}-{}", &crate::store::model::digest::hex(&d)[..10]);
        &odd_name
    };
    let folder = match kind {
        "entity" => None,
        "fact" => Some("facts/"),
        "playbook" => Some("playbooks/"),
        "skill" => Some("skills/"),
        _ => Some("entities/unknown-kind/"),
    };
    let typed = entity_type.filter(|t| !t.is_empty()).unwrap_or("untyped");
    // Joined by hand rather than with `format!`: one path per row of a first open.
    let mut path = String::with_capacity(24 + typed.len() + name.len());
    match folder {
        Some(f) => path.push_str(f),
        None => {
            path.push_str("entities/");
            path.push_str(typed);
            path.push('/');
        }
    }
    path.push_str(name);
    path.push_str(".md");
    path
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::store::read::frontmatter::{Block, locate, parse_yaml};

    /// A service node with every column set, edges and a fact source (also `direct`'s tests').
    pub(crate) fn sample() -> Node {
        Node {
            id: "svc-pg".into(),
            kind: "entity".into(),
            entity_type: Some("service".into()),
            title: "PostgreSQL: dev".into(),
            body: "The shared dev database.\n".into(),
            scope: "project".into(),
            scope_key: "homelab".into(),
            maturity: "candidate".into(),
            confidence: Some(0.8),
            provenance: json!({"source": "distiller", "aliases": ["dev-db"]}),
            created_at: "2026-01-01T00:00:00.000000Z".into(),
            updated_at: "2026-01-02T00:00:00.000000Z".into(),
            archived_at: None,
            use_count: 0,
            last_used_at: None,
            enabled: true,
            success_count: 0,
            failure_count: 0,
            edges: vec![("runs_on".into(), "host-a".into()), ("uses".into(), "tool-x".into())],
            sources: vec!["mem-1".into()],
            provenance_unreadable: None,
        }
    }

    #[test]
    fn rendering_is_an_export_file_that_reads_back() {
        let n = sample();
        let text = n.render();
        let Block::Closed { inner, body_start, .. } = locate(&text) else { panic!("{text}") };
        let f = parse_yaml(&text[inner]).unwrap();
        assert_eq!(f["title"], "PostgreSQL: dev");
        assert_eq!(f["aliases"], json!(["dev-db"]));
        assert_eq!(f["provenance"], json!({"source": "distiller"}));
        assert_eq!(f["relations"], json!({"runs_on": ["host-a"], "uses": ["tool-x"]}));
        assert_eq!(&text[body_start..], n.body);
        assert_eq!(n.path(), "entities/service/svc-pg.md");
    }

    #[test]
    fn odd_ids_get_plain_distinct_file_names() {
        let a = path_of("skill", None, "deploy/prod");
        let b = path_of("skill", None, "deploy_prod");
        assert!(a.starts_with("skills/deploy_prod-") && a.ends_with(".md"), "{a}");
        assert_eq!(b, "skills/deploy_prod.md");
        assert!(path_of("entity", None, "../x").starts_with("entities/untyped/___x-"));
        let at = |kind, t| path_of(kind, t, "a.b-c_1");
        assert_eq!(at("entity", Some("host")), "entities/host/a.b-c_1.md");
        assert_eq!(at("entity", Some("")), "entities/untyped/a.b-c_1.md");
        assert_eq!(at("fact", Some("host")), "facts/a.b-c_1.md");
        assert_eq!(at("playbook", None), "playbooks/a.b-c_1.md");
        assert_eq!(at("skill", None), "skills/a.b-c_1.md");
        assert_eq!(at("memo", Some("host")), "entities/unknown-kind/a.b-c_1.md");
    }
}
