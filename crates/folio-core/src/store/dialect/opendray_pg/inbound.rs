//! The nodes a veto or forget must read besides its own: every node that may link into them.
//! A verdict that takes a node away lists the links into it and names those it leaves broken
//! (`review::verdict::left_broken`, `review::impact`), which the whole store knows from its
//! backlinks; a part holding the named nodes, every node that may refer to them and every node
//! that claims one of their names gives the same list (docs/opendray-database.md, "A verdict
//! reads its own nodes"), without decoding the cached store of every node.
//!
//! What refers to a node `T` in a brain, and where each is found:
//! - a typed edge: a `knowledge_edges` row whose `dst_id` is `T`'s id exactly (an edge
//!   resolves by id alone, `resolve::LinkRules::edges_by_id`); asked for with the edges to
//!   every node whose id holds one of `T`'s names (found in the snapshot's index, and on the
//!   server for archived nodes and rows written since), a few more than needed;
//! - a fact source naming `T`'s file (`review::impact::names_file`): a memory id holding its
//!   file name, as written (a path keeps each of its segments);
//! - a body link: a wikilink by name or a markdown link by path, in a body holding one of
//!   `T`'s names or `T`'s id (lower-cased), or a `%`, `&` or `\` that may encode one — found
//!   in the snapshot's renderings (scanning every body on the server costs more than the
//!   whole store), and in the rows written since it (`since`).
//!
//! A body link resolves by name to the first node claiming it (ids, then stems, titles,
//! aliases: `resolve::name_table`); the part holds every node claiming one of `T`'s names
//! (found as the body links are), so a name resolves to `T` in the part exactly when it does
//! in the whole store. Cases this does not prove are left to the whole store: a name that is
//! not printable ASCII, a node id that is not its file's stem, a wikilink written as a path.
use postgres::GenericClient;
use serde_json::Value;

use super::{rows, since, snapshot};

/// More nodes than this that may refer to the decision's and the whole store is opened
/// instead: the part would cost as much.
const MANY: usize = 2_000;

/// What the nodes a decision takes away are named by, lower-cased, and their file names.
#[derive(Debug, Clone, PartialEq)]
pub struct Names {
    names: Vec<String>,
    files: Vec<String>,
}

/// The names of `targets`: each one's id (its file's stem), title and aliases. None when one
/// of them cannot be searched for as plain lower-case ASCII (the whole store decides).
pub fn names(targets: &[rows::Node]) -> Option<Names> {
    let mut out = Names { names: Vec::new(), files: Vec::new() };
    for n in targets {
        let path = n.path();
        let file = path.rsplit('/').next().unwrap_or(&path);
        // An id that is not a plain file name has a derived stem, which another node's names
        // could also be; and `x.md`'s path without `.md` is another node's (`x`).
        if file.strip_suffix(".md") != Some(n.id.as_str()) || n.id.to_ascii_lowercase().ends_with(".md") {
            return None;
        }
        out.files.push(file.to_string());
        let aliases: &[Value] = match n.provenance.get("aliases") {
            Some(Value::Array(a)) => a,
            _ => &[],
        };
        let aliases: Vec<&str> = aliases.iter().map(Value::as_str).collect::<Option<_>>()?;
        for name in [n.id.as_str(), n.title.as_str()].into_iter().chain(aliases) {
            let lower = name.to_lowercase();
            if lower.is_empty() {
                continue;
            }
            if !searchable(&lower) {
                return None;
            }
            out.names.push(lower);
        }
    }
    out.names.sort();
    out.names.dedup();
    Some(out)
}

/// Whether a lower-cased name is found as written in a rendering and a body: printable ASCII
/// that YAML writes unescaped (no quote, no backslash), and no other node's derived stem
/// (`rows::path_of`: `<name>-<10 hex digits>`).
fn searchable(lower: &str) -> bool {
    let plain = lower.bytes().all(|b| (0x20..0x7f).contains(&b) && !matches!(b, b'"' | b'\'' | b'\\'));
    let b = lower.as_bytes();
    let derived = b.len() > 11 && b[b.len() - 11] == b'-' && b[b.len() - 10..].iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'));
    plain && !derived
}

/// The ids of the nodes that may refer to the nodes named `names` or claim one of their
/// names, besides them: None when that cannot be told without the whole store (no snapshot,
/// or one that does not check; too many rows written since it; too many such nodes).
pub fn referrers(
    c: &mut impl GenericClient,
    root: &std::path::Path,
    names: &Names,
    archived: bool,
) -> Result<Option<Vec<String>>, postgres::Error> {
    let snapshot::Found::Intact(bytes) = snapshot::index_bytes(root) else { return Ok(None) };
    let header = bytes.header();
    let needles = Needles::of(names);
    // The snapshot is searched while the server answers, from the moment the header is read:
    // each took about as long, and decoding the index first held the server back
    // (docs/benchmarks.md, "pgonce").
    let (scanned, asked) = std::thread::scope(|s| {
        let scan = s.spawn(|| {
            let index = snapshot::Lean::of(&bytes).map_err(String::from)?;
            let named = named_in(&index.entries, &needles);
            let picked = snapshot::entries_where(root, &index, |text| needles.may_refer(text))?;
            Ok::<_, String>((picked.into_iter().map(|e| e.id.to_string()).collect::<Vec<_>>(), named))
        });
        let asked = on_server(c, header.horizon, names, archived, &needles);
        (scan.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)), asked)
    });
    let (Some(mut asked), Ok((picked, named))) = (asked?, scanned) else { return Ok(None) };
    let mut found = std::mem::take(&mut asked.referring);
    found.extend(picked);
    // The edges to every node whose id holds one of the names: those to the targets' own
    // ids among them.
    let mut targets = asked.named;
    targets.extend(named);
    let edges = c.query("SELECT DISTINCT src_id FROM knowledge_edges WHERE dst_id = ANY($1)", &[&targets])?;
    found.extend(edges.iter().map(|r| r.get::<_, String>(0)));
    let files: Vec<String> = names.files.iter().map(|f| format!("%{}%", like_escaped(f))).collect();
    let sources = c.query("SELECT DISTINCT node_id FROM knowledge_fact_sources WHERE memory_id LIKE ANY($1)", &[&files])?;
    found.extend(sources.iter().map(|r| r.get::<_, String>(0)));
    found.sort();
    found.dedup();
    Ok((found.len() <= MANY).then_some(found))
}

/// The ids of the snapshot's nodes that hold one of the names.
fn named_in(entries: &[snapshot::Slim<'_>], needles: &Needles) -> Vec<String> {
    let mut id = Vec::new();
    let mut out = Vec::new();
    for e in entries {
        id.clear();
        id.extend_from_slice(e.id.as_bytes());
        if needles.holds_a_name(&mut id) {
            out.push(e.id.to_string());
        }
    }
    out
}

/// What the server adds to the snapshot: of the rows written since it, those whose
/// renderings may refer (`referring`); of those and of the archived nodes (which a view
/// without them did not keep), the ids holding a name (`named`).
struct Asked {
    referring: Vec<String>,
    named: Vec<String>,
}

/// What the server tells of the nodes that may refer to the names (`Asked`). None when the
/// snapshot's horizon cannot be trusted or too many rows were written since.
fn on_server(
    c: &mut impl GenericClient,
    horizon: u64,
    names: &Names,
    archived: bool,
    needles: &Needles,
) -> Result<Option<Asked>, postgres::Error> {
    // One pass over the nodes finds both the rows written since the snapshot (each read, and
    // kept when its rendering may refer) and the archived nodes whose id holds one of the
    // names. Lower-cased in the C locale (ASCII only, whatever the database's), the Kelvin
    // sign (lower-cased to `k`) looked for as such. Only archived rows' ids are tested (the
    // others are in the snapshot's index or written since): testing every id took half the
    // pass (docs/benchmarks.md, "pgscan").
    if !since::trusted(c, horizon)? {
        return Ok(None);
    }
    let patterns: Vec<String> = names.names.iter().map(|n| format!("%{}%", like_escaped(n))).collect();
    let sql = format!(
        "SELECT id, {since}, archived_at IS NOT NULL FROM knowledge_nodes \
         WHERE {since} OR (archived_at IS NOT NULL AND (strpos(id, $3) > 0 OR lower(id COLLATE \"C\") LIKE ANY($2)))",
        since = since::WRITTEN_SINCE
    );
    let (mut written, mut named) = (Vec::new(), Vec::new());
    for r in c.query(&sql, &[&(horizon as i64), &patterns, &"\u{212A}"])? {
        let id: String = r.get(0);
        let (is_new, hidden): (bool, bool) = (r.get(1), r.get(2));
        if needles.holds_a_name(&mut id.clone().into_bytes()) {
            named.push(id.clone());
        }
        if is_new && (archived || !hidden) {
            written.push(id);
        }
    }
    if written.len() > MANY {
        return Ok(None);
    }
    let mut referring = Vec::new();
    for n in rows::by_ids(c, &written)? {
        if needles.may_refer(&mut n.render().into_bytes()) {
            referring.push(n.id);
        }
    }
    Ok(Some(Asked { referring, named }))
}

/// `s` matched literally by LIKE (its default escape, the backslash, which no name holds).
fn like_escaped(s: &str) -> String {
    s.replace('%', "\\%").replace('_', "\\_")
}

/// The names searched for in a rendering, in any ASCII case, and the Kelvin sign, which
/// lower-cases to `k`: a text holding it may spell a name so.
struct Needles(Vec<memchr::memmem::Finder<'static>>);

impl Needles {
    fn of(names: &Names) -> Needles {
        let needles = names.names.iter().map(String::as_bytes).chain([KELVIN]);
        Needles(needles.map(|n| memchr::memmem::Finder::new(n).into_owned()).collect())
    }

    /// Whether a rendering may refer to the names or claim one (lower-cased in place).
    fn may_refer(&self, text: &mut [u8]) -> bool {
        encodes_a_link(text) || self.holds_a_name(text)
    }

    /// Whether `text` holds a name in any ASCII case (lower-cased in place).
    fn holds_a_name(&self, text: &mut [u8]) -> bool {
        text.make_ascii_lowercase();
        self.0.iter().any(|f| f.find(text).is_some())
    }
}

/// The Kelvin sign in UTF-8.
const KELVIN: &[u8] = "\u{212A}".as_bytes();

/// A text with a link in it (a `[`) and a character a link's target may be encoded with
/// (percent-encoding, an entity, a backslash escape): such a target is not found as written.
fn encodes_a_link(text: &[u8]) -> bool {
    memchr::memchr3(b'%', b'&', b'\\', text).is_some() && memchr::memchr(b'[', text).is_some()
}

/// Whether a rendering has a wikilink written as a path (`[[hosts/a]]`, `[[a.md]]`): tried
/// from the root, then from its own folder, the first that lands wins, which a part lacking
/// the node at the first may not tell (the whole store decides).
pub fn has_path_wikilink(text: &str) -> bool {
    let Some(body) = text.strip_prefix("---\n").and_then(|t| t.find("\n---\n").map(|at| &t[at + 5..])) else {
        return text.contains("[[");
    };
    let mut rest = body;
    while let Some(at) = rest.find("[[") {
        let inner = &rest[at + 2..];
        let end = inner.find("]]").unwrap_or(inner.len());
        let target = inner[..end].split(['|', '#']).next().unwrap_or("").trim();
        if target.contains('/') || target.starts_with('.') || target.to_ascii_lowercase().ends_with(".md") {
            return true;
        }
        // The next `[[` may start inside this one (`[[x|y [[a/b]]`): each is tried.
        rest = inner;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: &str, title: &str, aliases: Value) -> rows::Node {
        let mut n = rows::tests::sample();
        n.id = id.into();
        n.title = title.into();
        n.provenance = serde_json::json!({ "aliases": aliases });
        n
    }

    #[test]
    fn a_node_is_named_by_its_id_title_and_aliases_lower_cased() {
        let n = names(&[node("svc-pg", "PostgreSQL: dev", serde_json::json!(["Dev-DB"]))]).unwrap();
        assert_eq!(n.names, ["dev-db", "postgresql: dev", "svc-pg"]);
        assert_eq!(n.files, ["svc-pg.md"]);
    }

    #[test]
    fn names_that_cannot_be_searched_as_written_leave_it_to_the_whole_store() {
        assert!(names(&[node("svc-pg", "Café", serde_json::json!([]))]).is_none());
        assert!(names(&[node("svc-pg", "Ann's host", serde_json::json!([]))]).is_none());
        assert!(names(&[node("svc-pg", "t", serde_json::json!([1]))]).is_none());
        assert!(names(&[node("deploy/prod", "t", serde_json::json!([]))]).is_none());
        assert!(names(&[node("a.md", "t", serde_json::json!([]))]).is_none());
        assert!(names(&[node("svc-pg", "x-0123456789", serde_json::json!([]))]).is_none());
    }

    #[test]
    fn a_text_may_refer_by_a_name_in_any_case_or_an_encoded_link() {
        let n = Needles::of(&names(&[node("svc-pg", "PostgreSQL: dev", serde_json::json!([]))]).unwrap());
        let may_refer = |text: &str| n.may_refer(&mut text.as_bytes().to_vec());
        assert!(may_refer("see [[SVC-PG]]"));
        assert!(may_refer("see [[postgreSQL: Dev]]"));
        assert!(may_refer("the \u{212A}ey"));
        assert!(may_refer("[x](svc%2Dpg.md)"));
        assert!(may_refer("100% of [[other]]"));
        assert!(!may_refer("[[other]] and svc pg"));
        assert!(!may_refer("svc-p"));
    }

    #[test]
    fn a_wikilink_written_as_a_path_is_told() {
        assert!(has_path_wikilink("---\nid: a\n---\nsee [[hosts/a]]\n"));
        assert!(has_path_wikilink("---\nid: a\n---\nsee [[a.MD|x]]\n"));
        assert!(has_path_wikilink("---\nid: a\n---\nsee [[x|y [[hosts/a]]\n"));
        assert!(!has_path_wikilink("---\nid: a\n---\nsee [[host-a]] and [x](hosts/a.md)\n"));
    }
}
