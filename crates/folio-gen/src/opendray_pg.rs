//! opendray's brain in PostgreSQL: N nodes (entities, playbooks, skills — no facts, which
//! migration 0041 retired), two typed edges each and fact sources for a third of them, written
//! with COPY into a database where opendray's migrations have run and no node exists yet.
use std::io::Write as _;

use super::rng::Rng;
use super::{body, words};
use folio_core::store::dialect::opendray_pg::conn::Locator;

const KINDS: &[&str] = &["entity", "playbook", "skill"];
const ENTITY_TYPES: &[&str] = &["service", "host", "project", "tool", "decision", "tech", "person"];
const EDGES: &[&str] = &["runs_on", "uses", "about", "part_of", "depends_on", "used_by"];

/// What was written: (nodes, edges, bytes of COPY data).
pub fn fill(locator: &str, n: usize, seed: u64) -> Result<(usize, usize, u64), String> {
    let at = Locator::parse(locator)?;
    let mut c = at.connect()?;
    folio_core::store::dialect::opendray_pg::schema::check(&mut c, &at)?;
    let have: i64 = c.query_one("SELECT count(*) FROM knowledge_nodes", &[]).map_err(|e| at.explain(&e))?.get(0);
    if have > 0 {
        return Err(format!("{}: already holds {have} nodes; folio-gen fills an empty brain only", at.redacted));
    }
    let ids: Vec<String> = (0..n)
        .map(|i| {
            let mut rng = Rng::for_item(seed, i as u64);
            let kind = if rng.chance(70) { 0 } else { 1 + rng.below(2) };
            format!("{}-{}", &KINDS[kind][..2], words::name(&mut rng, i).0)
        })
        .collect();
    let mut nodes = Vec::with_capacity(n * 1200);
    let mut edges = Vec::with_capacity(n * 60);
    let mut sources = Vec::new();
    let mut edge_count = 0;
    for (i, id) in ids.iter().enumerate() {
        let mut rng = Rng::for_item(seed ^ 0x9E37, i as u64);
        let kind = KINDS[match &id[..2] {
            "en" => 0,
            "pl" => 1,
            _ => 2,
        }];
        let title = words::name(&mut Rng::for_item(seed, i as u64), i).1;
        let entity_type = if kind == "entity" { rng.pick(ENTITY_TYPES).to_string() } else { "\\N".into() };
        let links: Vec<String> = (0..rng.range(0, 2)).map(|_| format!("[[{}]]", ids[rng.below(n)])).collect();
        let b = body::build(&mut rng, 600, &["## Notes"], &links);
        let maturity = if kind == "entity" {
            *rng.pick(&["candidate", "fact"])
        } else {
            *rng.pick(&["candidate", "playbook", "skill"])
        };
        let days = rng.range(0, 90);
        let used = if kind == "skill" { rng.range(0, 20) } else { 0 };
        let ok = rng.below(used + 1);
        writeln!(
            nodes,
            "{id}\t{kind}\t{entity_type}\t{}\t{}\t{}\thomelab\t{maturity}\t0.{}\t{{\"source\": \"folio-gen\"}}\t{used}\t{ok}\t{}\t{}\t{}",
            esc(&title),
            esc(&b.text),
            rng.pick(&["project", "domain", "global"]),
            rng.range(5, 9),
            used - ok,
            ts(days),
            ts(days / 2),
        )
        .map_err(|e| e.to_string())?;
        let first = rng.below(EDGES.len());
        let second = (first + rng.range(1, EDGES.len() - 1)) % EDGES.len();
        for t in [first, second] {
            let d = rng.below(n);
            let d = if d == i { (d + 1) % n } else { d };
            if d != i {
                writeln!(edges, "{id}\t{}\t{}", EDGES[t], ids[d]).map_err(|e| e.to_string())?;
                edge_count += 1;
            }
        }
        if rng.chance(33) {
            writeln!(sources, "{id}\tmem-{i}").map_err(|e| e.to_string())?;
        }
    }
    let bytes = (nodes.len() + edges.len() + sources.len()) as u64;
    let mut tx = c.transaction().map_err(|e| at.explain(&e))?;
    for (sql, data) in [
        (
            "COPY knowledge_nodes (id, kind, entity_type, title, body, scope, scope_key, maturity, confidence, \
             provenance, use_count, success_count, failure_count, created_at, updated_at) FROM STDIN",
            &nodes,
        ),
        ("COPY knowledge_edges (src_id, edge_type, dst_id) FROM STDIN", &edges),
        ("COPY knowledge_fact_sources (node_id, memory_id) FROM STDIN", &sources),
    ] {
        let mut w = tx.copy_in(sql).map_err(|e| at.explain(&e))?;
        w.write_all(data).map_err(|e| e.to_string())?;
        w.finish().map_err(|e| at.explain(&e))?;
    }
    tx.commit().map_err(|e| at.explain(&e))?;
    Ok((n, edge_count, bytes))
}

/// A value in COPY's text format.
fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\t', "\\t").replace('\n', "\\n").replace('\r', "\\r")
}

/// A fixed timestamp `days` before 2026-08-20 (the same seed gives the same rows).
fn ts(days: usize) -> String {
    let t = time::macros::datetime!(2026-08-20 09:00 UTC) - time::Duration::days(days as i64);
    t.format(&time::format_description::well_known::Rfc3339).unwrap_or_default()
}
