//! The impact of a verdict that takes an entity away or moves it (veto, forget, merge, a
//! promote that moves its file): every inbound reference — body links, typed edges,
//! `sources` entries, catalog entries — and which of them the plan would leave broken.
//! Both faces show it before the person confirms; a plan that goes ahead and breaks them logs
//! each one (and lint then reports the dangling links).
use serde_json::json;

use super::Plan;
use super::ledger::is_approval;
use crate::store::Store;
use crate::store::dialect::FileRole;
use crate::store::model::count::count;
use crate::store::model::entity::{EntityIdx, Resolution};
use crate::store::model::lines::LineIndex;
use crate::store::read::{links, resolve::normalize};
use crate::store::write::preview::Preview;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Via {
    /// A link in the body (or a link-valued field).
    Link,
    /// A typed edge, by its key (`supersedes`, `links`, …).
    Edge(String),
    /// An entry of `sources` (`sources[].resource`).
    Source,
    /// An entry of a catalog (`index.md`, `_index.md`).
    Catalog,
}

/// One reference to a target entity from elsewhere in the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// The file that holds the reference.
    pub from: String,
    /// 1-based line (the referring entity's first line for fields).
    pub line: u32,
    pub via: Via,
    /// The entity referred to.
    pub to: String,
    /// The reference as written.
    pub written: String,
}

impl Reference {
    /// `notes/a.md:12 link → payments/ledger (../payments/ledger.md)`.
    pub fn describe(&self) -> String {
        let via = match &self.via {
            Via::Link => "link".to_string(),
            Via::Edge(k) => format!("edge {k}"),
            Via::Source => "source".to_string(),
            Via::Catalog => "catalog entry".to_string(),
        };
        format!("{}:{} {via} → {} ({})", self.from, self.line, self.to, self.written)
    }
}

/// What the person is shown before confirming.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Impact {
    /// Every inbound reference to the plan's entities, from outside them.
    pub inbound: Vec<Reference>,
    /// Those the plan leaves pointing at nothing.
    pub broken: Vec<Reference>,
}

/// Every reference into `targets` from other entities, catalogs included.
pub fn inbound(store: &Store, targets: &[EntityIdx]) -> Vec<Reference> {
    let mut out = Vec::new();
    if targets.is_empty() {
        return out;
    }
    // Each catalog is read once, whatever the number of targets.
    let catalogs: Vec<(&str, Vec<(u32, String)>)> = store
        .other_files
        .iter()
        .filter(|(_, r)| *r == FileRole::Catalog)
        .map(|(p, _)| (p.as_str(), catalog_links(store, p)))
        .collect();
    for &t in targets {
        let target = store.entity(t);
        for &b in store.backlinks.get(t as usize).map(|r| &r[..]).unwrap_or_default() {
            if b == t {
                continue;
            }
            let from = store.entity(b);
            for l in from.links.iter().filter(|l| l.resolution == Resolution::Entity(t)) {
                out.push(Reference {
                    from: from.path.clone(),
                    line: l.line,
                    via: Via::Link,
                    to: target.id.clone(),
                    written: l.target().to_string(),
                });
            }
            for e in from.edges.iter().filter(|e| e.resolved == Some(t)) {
                out.push(Reference {
                    from: from.path.clone(),
                    line: from.line,
                    via: Via::Edge(e.kind.clone()),
                    to: target.id.clone(),
                    written: e.target.clone(),
                });
            }
        }
        for (i, from) in store.entities.iter().enumerate() {
            if i as EntityIdx == t || from.path == target.path {
                continue;
            }
            // A format that reads `sources` as typed edges already listed them above.
            let as_edge = |s: &String| from.edges.iter().any(|e| e.resolved == Some(t) && e.target == *s);
            for s in from.sources.iter().filter(|s| names_file(&from.path, s, &target.path) && !as_edge(s)) {
                out.push(Reference {
                    from: from.path.clone(),
                    line: from.line,
                    via: Via::Source,
                    to: target.id.clone(),
                    written: s.clone(),
                });
            }
        }
        for (path, links) in &catalogs {
            for (line, written) in
                links.iter().filter(|(_, w)| names_file(path, &links::percent_decode(w), &target.path))
            {
                out.push(Reference {
                    from: path.to_string(),
                    line: *line,
                    via: Via::Catalog,
                    to: target.id.clone(),
                    written: written.clone(),
                });
            }
        }
    }
    out.sort_by(|a, b| (&a.from, a.line, &a.written).cmp(&(&b.from, b.line, &b.written)));
    out.dedup();
    out
}

/// Whether `written` (a source entry of the entity in `from`) names the file `target`: as a
/// root-relative path or relative to `from`'s folder.
fn names_file(from: &str, written: &str, target: &str) -> bool {
    let w = written.trim().trim_start_matches("./");
    let w = w.split('#').next().unwrap_or(w);
    if w.is_empty() || w.contains("://") {
        return false;
    }
    let folder = from.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
    let relative = if folder.is_empty() { w.to_string() } else { format!("{folder}/{w}") };
    normalize(w).as_deref() == Some(target) || normalize(&relative).as_deref() == Some(target)
}

/// The links of catalog `path`, with their lines.
fn catalog_links(store: &Store, path: &str) -> Vec<(u32, String)> {
    let Some(text) = store.storage().read(path).ok().and_then(|b| String::from_utf8(b).ok()) else { return Vec::new() };
    let lines = LineIndex::new(&text);
    links::extract(&text, 0, &lines).into_iter().map(|l| (l.line, l.target().to_string())).collect()
}

/// A plan made ready for a confirm dialog or `--dry-run`: its impact (the references it
/// leaves broken named in its log event) and its preview (catalogs, the log's exact bytes),
/// over one in-memory reading of the store after the plan.
pub fn prepare(store: &Store, mut plan: Plan) -> (Plan, Impact, Preview) {
    let after = store.overlaid(&plan.draft.writes());
    let mut preview = plan.preview_over(store, &after);
    let impact = of(store, &plan, &after, &preview.catalogs);
    if !impact.broken.is_empty() {
        impact.record(&mut plan);
        preview.relog(store, &plan.event, plan.logged_at());
    }
    (plan, impact, preview)
}

/// The inbound references of the plan's entities and which of them it leaves broken: one that
/// reached an entity file the plan removes, from a file whose reference the plan keeps as
/// written, in the store as it reads after the plan (`after`, with `catalogs` regenerated).
fn of(store: &Store, plan: &Plan, after: &Store, catalogs: &[(String, Option<String>, String)]) -> Impact {
    let writes = plan.draft.writes();
    let removed: Vec<&str> = writes.iter().filter(|w| w.after.is_none()).map(|w| w.path.as_str()).collect();
    // The entities the plan takes away (vetoed, forgotten, merged into another) or whose file
    // it moves; an approval that keeps the entity where it is has no impact.
    let targets: Vec<EntityIdx> = plan
        .decisions
        .iter()
        .filter_map(|d| {
            let i = store.find(&d.entity).filter(|&i| store.entity(i).id == d.entity)?;
            (!is_approval(&d.verdict) || removed.contains(&store.entity(i).path.as_str())).then_some(i)
        })
        .collect();
    let inbound = inbound(store, &targets);
    let broken = inbound
        .iter()
        .filter(|r| {
            let gone =
                targets.iter().any(|&t| store.entity(t).id == r.to && removed.contains(&store.entity(t).path.as_str()));
            gone && still_written(after, catalogs, r)
        })
        .cloned()
        .collect();
    Impact { inbound, broken }
}

/// Whether reference `r` is still there, as written, in the store after the plan.
fn still_written(after: &Store, catalogs: &[(String, Option<String>, String)], r: &Reference) -> bool {
    let mut from = after.entities.iter().filter(|e| e.path == r.from);
    match &r.via {
        Via::Link => {
            from.any(|e| e.links.iter().any(|l| l.target() == r.written && l.resolution != Resolution::Anchor))
        }
        Via::Edge(k) => from.any(|e| e.edges.iter().any(|x| &x.kind == k && x.target == r.written)),
        Via::Source => from.any(|e| e.sources.contains(&r.written)),
        Via::Catalog => match catalogs.iter().find(|(p, _, _)| *p == r.from) {
            Some((_, _, text)) => text.contains(&r.written),
            None => after.other_files.iter().any(|(p, _)| *p == r.from),
        },
    }
}

impl Impact {
    /// The lines a confirm dialog or the CLI prints.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.inbound.is_empty() {
            return out;
        }
        out.push(format!("{}:", count(self.inbound.len(), "inbound reference")));
        out.extend(self.inbound.iter().map(|r| format!("  {}", r.describe())));
        if !self.broken.is_empty() {
            out.push(format!("⚠ {} left broken (logged; lint reports them):", self.broken.len()));
            out.extend(self.broken.iter().map(|r| format!("  {}", r.describe())));
        }
        out
    }

    /// Going ahead: the references left broken are named in the plan's log event.
    fn record(&self, plan: &mut Plan) {
        if self.broken.is_empty() {
            return;
        }
        let all: Vec<String> = self.broken.iter().map(Reference::describe).collect();
        plan.event.details.insert("broken_references".into(), json!(all));
        // A verdict whose own plan already logs the links it breaks (`broken_links`) is not
        // told twice in its summary; the full list is in `broken_references` all the same.
        if plan.event.details.contains_key("broken_links") {
            return;
        }
        let left = format!("left {} broken", count(self.broken.len(), "inbound reference"));
        plan.event.summary = format!("{}; {left}", plan.event.summary);
        // A log written from bullets (AIP-10) has the summary in them already.
        if !plan.event.bullets.is_empty() {
            let wheres: Vec<String> = self.broken.iter().map(|r| format!("{}:{}", r.from, r.line)).collect();
            plan.event.bullets.push(format!("{}{}: {}.", left[..1].to_uppercase(), &left[1..], wheres.join(", ")));
        }
        plan.notes
            .push(format!("{} left broken; `folio lint` lists them", count(self.broken.len(), "inbound reference")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A vault note linked from a body and cited in another's `sources`: both are listed, and
    /// a forget that archives it leaves both broken; an approval lists nothing.
    #[test]
    fn links_and_sources_into_a_forgotten_note_are_listed_and_broken() {
        let dir = tempfile::tempdir().unwrap();
        let put = |rel: &str, text: &str| std::fs::write(dir.path().join(rel), text).unwrap();
        put("target.md", "# Target\n");
        put("linker.md", "# Linker\n\nSee [the target](target.md).\n");
        put("citer.md", "---\nsources: [target.md]\n---\n# Citer\n");
        let store = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
        let t = store.find("target").unwrap();
        let found: Vec<String> = inbound(&store, &[t]).iter().map(Reference::describe).collect();
        assert_eq!(found, ["citer.md:1 source → target (target.md)", "linker.md:3 link → target (target.md)"]);

        let reviewer = super::super::Reviewer::now("human:ann");
        let forget =
            super::super::verdict::plan(&store, &[t], &super::super::Verdict::Forget, &reviewer, false).unwrap();
        let (plan, impact, preview) = prepare(&store, forget);
        assert_eq!(impact.broken.len(), 2, "{:?}", impact.lines());
        // The verdict's own summary names the broken links (`broken_links`); every reference
        // left broken, the `sources` entry too, is in `broken_references`.
        assert!(plan.event.summary.ends_with("1 inbound link left broken"), "{}", plan.event.summary);
        assert_eq!(plan.event.details["broken_references"].as_array().map(Vec::len), Some(2));
        assert!(preview.log_after.contains("broken_references"));

        let approve = super::super::Verdict::approve();
        let approve = super::super::verdict::plan(&store, &[t], &approve, &reviewer, false).unwrap();
        assert_eq!(prepare(&store, approve).1, Impact::default());
    }

    #[test]
    fn a_source_names_a_file_from_the_root_or_its_own_folder() {
        assert!(names_file("computations/r.md", "tables/orders.md", "tables/orders.md"));
        assert!(names_file("computations/r.md", "./tables/orders.md", "tables/orders.md"));
        assert!(names_file("tables/a.md", "orders.md", "tables/orders.md"));
        assert!(names_file("computations/r.md", "../tables/orders.md#cols", "tables/orders.md"));
        assert!(!names_file("computations/r.md", "https://x.example/tables/orders.md", "tables/orders.md"));
        assert!(!names_file("computations/r.md", "tables/orders-v2.md", "tables/orders.md"));
        assert!(!names_file("computations/r.md", "", "tables/orders.md"));
    }
}
