//! "Leave a stub": when a veto or forget takes an entity's file out of the store and other
//! entities still link to it, the person may leave a short page in its place instead of letting
//! those links break. The page says what was there, who removed it, when and why, in the
//! format's own grammar (`ReviewRules::stub`); a format whose own tool would read such a page as
//! live knowledge (evolve recalls every file) keeps none, and the verdict is refused with that
//! reason rather than silently breaking the links.
use super::ReviewError;
use super::plan::Plan;
use crate::store::Store;
use crate::store::model::entity::EntityIdx;

/// A markdown page with `fields` as YAML frontmatter (values are written as JSON strings, which
/// YAML reads the same), the title as its heading and the removal said plainly. `callout`: as an
/// Obsidian callout.
pub fn page(title: &str, fields: &[(&str, &str)], why: &str, callout: bool) -> String {
    let quoted = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    let mut out = String::from("---\n");
    out.push_str(&format!("title: {}\n", quoted(title)));
    for (k, v) in fields {
        out.push_str(&format!("{k}: {}\n", quoted(v)));
    }
    out.push_str("---\n");
    let heading = title.replace(['\n', '\r'], " ");
    out.push_str(&format!("# {heading}\n\n"));
    let why = why.replace(['\n', '\r'], " ");
    if callout {
        out.push_str(&format!("> [!warning] Removed from the knowledge base\n> {why}\n"));
    } else {
        out.push_str(&format!("> **Removed from the knowledge base:** {why}.\n"));
    }
    out.push_str("\nThis page stays so that links to it still resolve; what it said is in folio's archive.\n");
    out
}

/// Put a stub where each decided entity's file leaves the store. Refused as a whole when the
/// format keeps no stubs.
pub fn leave(store: &Store, targets: &[EntityIdx], why: &str, plan: &mut Plan) -> Result<(), ReviewError> {
    let leaving: Vec<String> = plan
        .draft
        .archived()
        .into_iter()
        .map(|(p, _)| p.to_string())
        .chain(plan.draft.moves().into_iter().map(|(p, _)| p.to_string()))
        .collect();
    let rules = store.kind().format().review();
    let at = plan.reviewer.timestamp();
    let mut left = Vec::new();
    for &idx in targets {
        let e = store.entity(idx);
        if !leaving.contains(&e.path) {
            continue;
        }
        let Some(text) = rules.stub(e, why, &at) else {
            return Err(ReviewError::refused(format!(
                "{}: {} keeps no stubs (its own tool would read one as live knowledge); repoint the links with a merge, or let them break",
                e.path,
                store.kind()
            )));
        };
        plan.draft.leave_stub(&e.path, text)?;
        left.push(e.path.clone());
    }
    if !left.is_empty() {
        plan.event.summary = format!("{}; left a stub at {}", plan.event.summary, left.join(", "));
        plan.event.details.insert("stubs".into(), serde_json::json!(left));
        plan.notes.push(format!("a stub stays at {} so links into it still resolve", left.join(", ")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stub_page_is_frontmatter_a_heading_and_the_reason() {
        let p = page(
            "Gross \"margin\"",
            &[("type", "Metric"), ("status", "deprecated")],
            "vetoed by human:ann on 2026-11-26: wrong",
            false,
        );
        assert!(p.starts_with("---\ntitle: \"Gross \\\"margin\\\"\"\ntype: \"Metric\"\nstatus: \"deprecated\"\n---\n# Gross \"margin\"\n"), "{p}");
        assert!(p.contains("> **Removed from the knowledge base:** vetoed by human:ann on 2026-11-26: wrong."));
        let fm: serde_yaml_ng::Value = serde_yaml_ng::from_str(p.split("---\n").nth(1).unwrap()).unwrap();
        assert_eq!(fm["title"].as_str(), Some("Gross \"margin\""));
        let v = page("Hot Cache", &[], "forgotten by human:ann on 2026-11-26", true);
        assert!(v.contains("> [!warning] Removed from the knowledge base\n> forgotten by human:ann"), "{v}");
    }
}
