//! OKF promote with a type (docs/review.md, "`promote ID [--to LEVEL]`"). The type is set
//! surgically; when every type of the store lives in a folder of its own, the file moves into
//! the new type's folder and every link and typed edge to it is repointed
//! (`repoint::plan_move`), all in the plan's one changeset.
use serde_json::json;

use super::plan::Plan;
use super::{ReviewError, fields};
use crate::store::Store;
use crate::store::model::entity::EntityIdx;
use crate::store::write::repoint;

pub fn promote(store: &Store, idx: EntityIdx, kind: &str, plan: &mut Plan) -> Result<(), ReviewError> {
    let e = store.entity(idx);
    let path = e.path.clone();
    let dest = match type_folder(store, kind, idx) {
        Folder::Ungrouped => None,
        Folder::Unknown => {
            plan.notes.push(format!("no folder holds `{kind}` entities yet; {path} stays where it is"));
            None
        }
        Folder::Dir(dir) if path.starts_with(&format!("{dir}/")) => None,
        Folder::Dir(dir) => Some(format!("{dir}/{}", path.rsplit('/').next().unwrap_or(&path))),
    };
    let Some(dest) = dest else {
        return fields::set(&mut plan.draft, store, &path, "type", json!(kind));
    };
    let moved = repoint::plan_move(store, idx, &dest).map_err(ReviewError::refused)?;
    // The move is computed from the files on disk: an earlier verdict of the same plan must not
    // have changed any of them.
    if let Some(p) = std::iter::once(&path).chain(moved.referrers.keys()).find(|p| plan.draft.is_changed(p)) {
        return Err(ReviewError::refused(format!(
            "{p}: already changed by another decision in this changeset; promote `{}` on its own",
            e.id
        )));
    }
    plan.notes.extend(moved.skipped.iter().cloned());
    for (p, (_, new)) in moved.referrers.iter().chain(&moved.catalogs) {
        let old = plan.draft.text(store, p)?.clone();
        plan.repointed.extend(super::merge::changed_lines(p, &old, new));
        plan.draft.set_text(store, p, new.clone())?;
    }
    plan.draft.set_text(store, &path, moved.moved)?;
    fields::set(&mut plan.draft, store, &path, "type", json!(kind))?;
    plan.draft.move_to(store, &path, &dest)?;
    // The verdict and the log line follow the entity to its new id and path.
    let new_id = dest.trim_end_matches(".md").to_string();
    if let Some(d) = plan.decisions.iter_mut().rev().find(|d| d.entity == e.id) {
        d.renamed_to = Some(new_id.clone());
    }
    if let Some(ev) = plan.event.entities.iter_mut().find(|x| x.id == e.id) {
        ev.id = new_id;
        ev.path = dest.clone();
    }
    plan.event.summary = format!("{}; moved to {dest}", plan.event.summary);
    plan.event = plan.event.clone().detail("from", path).detail("moved_to", dest);
    Ok(())
}

#[derive(Debug, PartialEq)]
enum Folder {
    /// Types are not kept one folder each: the file stays where it is.
    Ungrouped,
    /// Grouped, but no entity has this type yet.
    Unknown,
    Dir(String),
}

/// Where entities of `kind` live when the store groups by type, that is when the entities of
/// each type (besides `except`) all sit below one top-level folder. The type's folder is the
/// deepest folder its entities share.
fn type_folder(store: &Store, kind: &str, except: EntityIdx) -> Folder {
    use std::collections::BTreeMap;
    let mut by_type: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (i, e) in store.entities.iter().enumerate() {
        if i as EntityIdx == except || e.escapes_root() {
            continue;
        }
        let Some(k) = e.kind.as_deref().map(str::trim).filter(|k| !k.is_empty()) else { continue };
        let dir = e.path.rsplit_once('/').map_or("", |(d, _)| d);
        by_type.entry(k).or_default().push(dir);
    }
    let top = |d: &str| d.split('/').next().unwrap_or("").to_string();
    let grouped = !by_type.is_empty()
        && by_type.values().all(|dirs| !dirs[0].is_empty() && dirs.iter().all(|d| top(d) == top(dirs[0])));
    if !grouped {
        return Folder::Ungrouped;
    }
    let Some(dirs) = by_type.get(kind.trim()) else { return Folder::Unknown };
    let mut common: Vec<&str> = dirs[0].split('/').collect();
    for d in &dirs[1..] {
        let parts: Vec<&str> = d.split('/').collect();
        let n = common.iter().zip(&parts).take_while(|(a, b)| a == b).count();
        common.truncate(n);
    }
    Folder::Dir(common.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(files: &[(&str, &str)]) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        for (p, t) in files {
            let p = dir.path().join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, t).unwrap();
        }
        let s = Store::load(dir.path(), crate::store::dialect::okf::KIND, "test".into());
        (dir, s)
    }

    #[test]
    fn a_type_folder_only_when_every_type_keeps_to_one() {
        let (_d, s) = store(&[
            ("refs/metrics/a.md", "---\ntype: Reference\n---\n"),
            ("refs/joins/b.md", "---\ntype: Reference\n---\n"),
            ("tables/t.md", "---\ntype: Table\n---\n"),
            ("tables/u.md", "---\ntype: Table\n---\n"),
        ]);
        let t = s.find("tables/t").unwrap();
        assert_eq!(type_folder(&s, "Reference", t), Folder::Dir("refs".into()));
        assert_eq!(type_folder(&s, "Table", t), Folder::Dir("tables".into()));
        assert_eq!(type_folder(&s, "Skill", t), Folder::Unknown);
        let (_d, flat) = store(&[("a.md", "---\ntype: Note\n---\n"), ("x/b.md", "---\ntype: Table\n---\n")]);
        assert_eq!(type_folder(&flat, "Table", flat.find("a").unwrap()), Folder::Dir("x".into()));
        assert_eq!(type_folder(&flat, "Table", flat.find("x/b").unwrap()), Folder::Ungrouped);
    }
}
