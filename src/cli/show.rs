//! `folio show [PATH] ID`: one entity with its links, backlinks and typed edges.
use serde_json::{Value, json};

use super::common::{Global, find_entity, open_store, print_json, split_path_arg};
use super::escape;
use folio_core::store::Store;
use folio_core::store::model::entity::{EntityIdx, Resolution};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// [PATH] ID — the store (optional) and the entity's id (or path, or title).
    #[arg(required = true, num_args = 1..=2, value_name = "PATH] [ID")]
    pub words: Vec<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(g: &Global, a: Args) -> anyhow::Result<u8> {
    let (path, id) = split_path_arg(a.words)?;
    let store = open_store(g, path.as_deref())?;
    let idx = find_entity(&store, &id)?;
    let report = show(&store, idx)?;
    if a.json {
        print_json(&report);
    } else {
        print_text(&store, &report);
    }
    Ok(0)
}

/// Where a link leads, as `show` reports it: (status word, resolved id or path).
pub fn resolution(store: &Store, r: &Resolution) -> (&'static str, Option<String>) {
    match r {
        Resolution::Entity(i) => ("entity", Some(store.entity(*i).id.clone())),
        Resolution::File(p) => ("file", Some(p.to_string())),
        Resolution::External => ("external", None),
        Resolution::Anchor => ("anchor", None),
        Resolution::Broken | Resolution::Pending => ("broken", None),
        Resolution::Escapes => ("escapes-root", None),
    }
}

pub fn show(store: &Store, idx: EntityIdx) -> anyhow::Result<Value> {
    let e = store.entity(idx);
    // An entity that could not be read still shows what loading recorded (its problems say why).
    let fields = if e.problems.iter().any(|p| p.rule == folio_core::store::model::entity::rule::UNREADABLE) {
        Default::default()
    } else {
        store.fields(idx)?
    };
    let links: Vec<Value> = e
        .links
        .iter()
        .map(|l| {
            let (status, resolved) = resolution(store, &l.resolution);
            json!({"target": l.target(), "label": l.label(), "resolved": resolved, "status": status,
                   "syntax": match l.syntax { folio_core::store::model::entity::LinkSyntax::Wiki => "wiki", _ => "markdown" },
                   "line": l.line, "column": l.col})
        })
        .collect();
    let backlinks: Vec<&str> = store.backlinks[idx as usize].iter().map(|&b| store.entity(b).id.as_str()).collect();
    let edges: Vec<Value> = e
        .edges
        .iter()
        .map(
            |d| json!({"type": d.kind, "target": d.target, "resolved": d.resolved.map(|r| store.entity(r).id.clone())}),
        )
        .collect();
    let problems: Vec<Value> = e
        .problems
        .iter()
        // The rule's own severity when the problem does not override it: never null (issue 23).
        .map(|p| {
            let severity = p.severity.unwrap_or_else(|| folio_core::store::lint::default_severity(p.rule));
            json!({"rule": p.rule, "severity": severity.name(), "message": p.message, "line": p.line, "column": p.col})
        })
        .collect();
    Ok(json!({
        "id": e.id, "path": e.path, "line": e.line, "kind": e.kind, "title": e.title, "description": e.description,
        "status": e.status, "created": e.created, "updated": e.updated, "tags": e.tags, "aliases": e.aliases,
        "sources": e.sources, "confidence": e.confidence,
        "fields": fields, "links": links, "backlinks": backlinks, "edges": edges, "problems": problems,
    }))
}

fn print_text(store: &Store, r: &Value) {
    let s = |k: &str| r[k].as_str().map(escape::line).unwrap_or_default();
    println!("{}", s("title"));
    let id = r["id"].as_str().map(escape::id).unwrap_or_default();
    println!("  id: {id}   path: {}:{}", s("path"), r["line"]);
    for key in ["kind", "description", "status", "created", "updated", "confidence"] {
        match &r[key] {
            Value::Null => {}
            Value::String(v) => println!("  {key}: {}", escape::line(v)),
            v => println!("  {key}: {v}"),
        }
    }
    for key in ["tags", "aliases", "sources"] {
        let items: Vec<String> = r[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str())
            .map(|s| escape::line(s).into_owned())
            .collect();
        if !items.is_empty() {
            println!("  {key}: {}", items.join(", "));
        }
    }
    if let Some(fields) = r["fields"].as_object().filter(|f| !f.is_empty()) {
        println!("fields:");
        for (k, v) in fields {
            let v = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            println!("  {}: {}", escape::line(k), escape::line(&v));
        }
    }
    let list = |key: &str| r[key].as_array().cloned().unwrap_or_default();
    let links = list("links");
    if !links.is_empty() {
        println!("links ({}):", links.len());
        for l in links {
            let to = l["resolved"].as_str().map(escape::line).unwrap_or_default();
            println!(
                "  L{:<5} {} -> {} [{}]",
                l["line"],
                escape::line(l["target"].as_str().unwrap_or("")),
                to,
                l["status"].as_str().unwrap_or("")
            );
        }
    }
    let backlinks = list("backlinks");
    if !backlinks.is_empty() {
        println!("backlinks ({}):", backlinks.len());
        for b in backlinks {
            println!("  {}", escape::id(b.as_str().unwrap_or("")));
        }
    }
    let edges = list("edges");
    if !edges.is_empty() {
        println!("edges ({}):", edges.len());
        for d in edges {
            let target = d["target"].as_str().unwrap_or("");
            // The target named as it reads: its title, and its id only where the edge named
            // it otherwise (a store keyed by ids would print the same id twice).
            let title = d["resolved"].as_str().and_then(|id| store.find(id)).map(|i| store.entity(i).title.as_str());
            let to = match (d["resolved"].as_str(), title) {
                (Some(id), Some(title)) if id == target => format!("“{}”", escape::line(title)),
                (Some(id), Some(title)) => format!("-> {} “{}”", escape::id(id), escape::line(title)),
                (Some(id), None) => format!("-> {}", escape::id(id)),
                (None, _) => "-> (unresolved)".into(),
            };
            println!("  {} {} {to}", escape::line(d["type"].as_str().unwrap_or("")), escape::id(target));
        }
    }
    for p in list("problems") {
        println!("problem: line {}: {}", p["line"], escape::line(p["message"].as_str().unwrap_or("")));
    }
}
