//! A decision's node files, for its length only. The folder engine (`file_storage`) checks,
//! journals and swaps files; a database store has none (`snapshot`). So each node a decision
//! replaces is laid down from the snapshot — the bytes the person saw — just before the
//! engine runs, and every node file is taken away once it is done, committed or not. Then
//! the snapshot takes the decision's renderings. While files are laid down, a marker says so:
//! an open in another process leaves them alone (`mirror::retire_mirror`).
use std::io;
use std::path::{Path, PathBuf};

use super::snapshot;
use crate::store::model::digest;
use crate::store::write::storage::Plan;

/// The marker beside the snapshot while a decision's node files are laid down.
pub const MARKER: &str = "staging";

/// A decision's node files laid down (`lay`).
pub struct Staged {
    root: PathBuf,
    marker: PathBuf,
}

impl Staged {
    /// Lay down each node file `plan` expects to find (its expected digest): the snapshot's
    /// bytes, when they are what the plan expects (else nothing is laid, and the engine
    /// reports the conflict).
    pub fn lay(root: &Path, node: impl Fn(&str) -> io::Result<Vec<u8>>, plan: &Plan) -> io::Result<Staged> {
        let root = root.to_path_buf();
        let marker = root.join(".folio").join(MARKER);
        crate::store::read::fsio::write_atomic(&marker, std::process::id().to_string().as_bytes())?;
        let staged = Staged { root, marker };
        let expected = plan.writes.iter().filter_map(|w| Some((w.path.as_str(), w.expected.as_ref()?)));
        let archived = plan.archived.iter().map(|(p, d)| (p.as_str(), d));
        for (rel, want) in expected.chain(archived) {
            let Ok(bytes) = node(rel) else { continue };
            if digest::of(&bytes) != *want {
                continue;
            }
            let abs = staged.root.join(rel);
            if let Some(dir) = abs.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(&abs, &bytes)?;
        }
        Ok(staged)
    }

    /// Take away the node files at `rels` (and the folders left empty), then the marker.
    pub fn take_away<'r>(self, rels: impl Iterator<Item = &'r str>) {
        for rel in rels {
            let abs = self.root.join(rel);
            let _ = std::fs::remove_file(&abs);
            let mut dir = abs.parent();
            while let Some(d) = dir.filter(|d| *d != self.root) {
                if std::fs::remove_dir(d).is_err() {
                    break;
                }
                dir = d.parent();
            }
        }
        let _ = std::fs::remove_file(&self.marker);
    }
}

/// Whether a decision has node files laid down in `root` now (a marker younger than ten
/// minutes: one left by a process that died is not obeyed for ever).
pub fn under_way(root: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(root.join(".folio").join(MARKER)) else { return false };
    meta.modified().ok().and_then(|t| t.elapsed().ok()).is_none_or(|age| age.as_secs() < 600)
}

/// Take a committed decision's nodes into the snapshot: each path's new rendering, or none
/// (the node left the view, or moved to another path). Their versions are left unknown, so
/// the next open compares them with the database again.
pub fn into_snapshot(root: &Path, nodes: &[(String, Option<Vec<u8>>)]) -> io::Result<()> {
    let snapshot::Found::Intact(mut s) = snapshot::read(root) else { return Ok(()) };
    let by_rel: std::collections::HashMap<String, String> =
        s.nodes.iter().map(|(id, n)| (n.rel.clone(), id.clone())).collect();
    for (rel, _) in nodes {
        if let Some(id) = by_rel.get(rel) {
            s.nodes.remove(id);
        }
    }
    for (rel, after) in nodes {
        let Some(bytes) = after else { continue };
        let text = String::from_utf8_lossy(bytes).into_owned();
        let Some(id) =
            crate::store::read::frontmatter::get_str(&crate::store::dialect::yaml_fields(&text), "id")
        else {
            continue;
        };
        let unknown = super::rows::Version { xmin: 0, edges: 0, sources: 0 };
        s.nodes.insert(id, snapshot::Node { version: unknown, rel: rel.clone(), text });
    }
    snapshot::write(root, &mut s)?;
    // What this process reads has them already (`show_written`): it takes the generation.
    snapshot::renumber(root, s.generation);
    Ok(())
}

/// While a decision runs, this process's loader and reads see its node files as written (as
/// a folder store's readers see the files the engine swapped in): what the review ledger
/// records of an approval is the approved text. Gives back what to restore should the
/// decision not stand (`restore`).
pub fn show_written(root: &Path, nodes: &[(String, Option<Vec<u8>>)]) -> Vec<(String, Option<String>)> {
    let changes = nodes
        .iter()
        .map(|(rel, after)| (rel.clone(), after.as_deref().map(|b| String::from_utf8_lossy(b).into_owned())))
        .collect();
    snapshot::patch(root, changes)
}

/// Put back what `show_written` replaced.
pub fn restore(root: &Path, was: Vec<(String, Option<String>)>) {
    snapshot::patch(root, was.into_iter().rev().collect());
}
