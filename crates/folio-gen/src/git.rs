//! A git history for a generated store (`folio-gen --git-commits N`), written with gitoxide:
//! the store as the first commit, then N commits of agent edits — each appends a line to one
//! entity, one in ten to the same "hot" entity, which is renamed halfway — by three authors an
//! hour apart. The work tree ends as HEAD holds it; no index is written (folio never reads
//! one; `git reset -q` makes one for `git status`).
use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use super::rng::Rng;

/// What the history holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitReport {
    pub commits: usize,
    /// The entity edited most, where it is at HEAD (relative to the store root).
    pub hot: String,
    /// How many commits touched it (its first one included).
    pub hot_versions: usize,
}

const AUTHORS: [(&str, &str); 3] =
    [("scout", "scout@agents.example"), ("tidy", "tidy@agents.example"), ("Ann", "ann@example.com")];
/// 2026-01-01T00:00:00Z: the first commit's time; each next one is an hour later.
const START: i64 = 1_767_225_600;

fn err(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(e.to_string())
}

/// Every file under `root` (outside `.git`), `/`-separated, in name order.
fn files(root: &Path, dir: &Path, out: &mut Vec<String>) -> io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        if e.file_name() == ".git" {
            continue;
        }
        if e.file_type()?.is_dir() {
            files(root, &path, out)?;
        } else if let Ok(rel) = path.strip_prefix(root) {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
    Ok(())
}

/// Whether a generated file is an entity an agent would edit (not a catalog or a log).
fn editable(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let reserved = folio_core::store::dialect::formats().any(|f| f.spec().reserved_names.contains(&name));
    rel.ends_with(".md") && !reserved && name != "README.md"
}

/// Make `root` a repository whose history is the store plus `commits` agent edits.
pub fn commit_history(root: &Path, commits: usize, seed: u64) -> io::Result<GitReport> {
    let repo = gix::init(root).map_err(err)?;
    let mut all = Vec::new();
    files(root, root, &mut all)?;
    let mut content: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut editor = repo.empty_tree().edit().map_err(err)?;
    for rel in &all {
        let bytes = std::fs::read(root.join(rel))?;
        let id = repo.write_blob(&bytes).map_err(err)?;
        editor.upsert(rel.as_str(), gix::object::tree::EntryKind::Blob, id).map_err(err)?;
        content.insert(rel.clone(), bytes);
    }
    let entities: Vec<String> = all.iter().filter(|r| editable(r)).cloned().collect();
    if entities.is_empty() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "no entity files to edit"));
    }
    let mut hot = entities[entities.len() / 2].clone();
    let mut hot_versions = 1;
    let mut parent: Option<gix::ObjectId> = None;
    let mut rng = Rng::new(seed ^ 0x6769_7468);
    for n in 0..=commits {
        let message = if n == 0 {
            "store as generated".to_string()
        } else if n == commits / 2 && commits >= 2 {
            // Halfway, the hot entity moves (history follows it through the rename).
            let to = format!("{}-renamed.md", hot.trim_end_matches(".md"));
            let bytes = content.remove(&hot).unwrap_or_default();
            editor.remove(hot.as_str()).map_err(err)?;
            let id = repo.write_blob(&bytes).map_err(err)?;
            editor.upsert(to.as_str(), gix::object::tree::EntryKind::Blob, id).map_err(err)?;
            content.insert(to.clone(), bytes);
            let msg = format!("rename {hot} to {to}");
            hot = to;
            hot_versions += 1;
            msg
        } else {
            let target = if n % 10 == 0 { hot.clone() } else { entities[rng.below(entities.len())].clone() };
            let target = if content.contains_key(&target) { target } else { hot.clone() };
            if target == hot {
                hot_versions += 1;
            }
            let bytes = content.get_mut(&target).expect("a file of the store");
            if !bytes.ends_with(b"\n") {
                bytes.push(b'\n');
            }
            bytes.extend_from_slice(format!("\nObservation {n}: seen again in run {}.\n", rng.below(1000)).as_bytes());
            let id = repo.write_blob(&*bytes).map_err(err)?;
            editor.upsert(target.as_str(), gix::object::tree::EntryKind::Blob, id).map_err(err)?;
            format!("{}: note observation {n}", target.trim_end_matches(".md"))
        };
        let tree = editor.write().map_err(err)?.detach();
        let (name, email) = AUTHORS[n % AUTHORS.len()];
        let time = format!("{} +0000", START + n as i64 * 3600);
        let sig = gix::actor::SignatureRef { name: name.into(), email: email.into(), time: &time };
        let id = repo.commit_as(sig, sig, "HEAD", &message, tree, parent).map_err(err)?;
        parent = Some(id.detach());
    }
    // The work tree as HEAD holds it: edited files rewritten, the renamed one moved.
    for rel in &all {
        if !content.contains_key(rel) {
            std::fs::remove_file(root.join(rel))?;
        }
    }
    for (rel, bytes) in &content {
        let path = root.join(rel);
        if std::fs::read(&path).ok().as_deref() != Some(bytes.as_slice()) {
            std::fs::write(&path, bytes)?;
        }
    }
    Ok(GitReport { commits: commits + 1, hot, hot_versions })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_history_is_read_back_through_its_rename() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("store");
        super::super::generate(folio_core::store::dialect::vault::KIND, 30, 3, &root).unwrap();
        let r = commit_history(&root, 40, 3).unwrap();
        assert_eq!(r.commits, 41);
        assert!(r.hot.ends_with("-renamed.md"), "{r:?}");
        let store = folio_core::store::Store::load(&root, folio_core::store::dialect::vault::KIND, "test".into());
        let idx = store.entities.iter().position(|e| e.path == r.hot).expect("the hot entity") as u32;
        let h = folio_core::store::history::of_entity(&store, idx).unwrap();
        let commits = h.versions.iter().filter(|v| v.commit.is_some()).count();
        assert_eq!(commits, r.hot_versions, "every commit that touched it, through the rename");
        assert!(h.versions.iter().any(|v| v.status == "renamed"));
        assert!(h.versions.iter().all(|v| v.source != folio_core::store::history::Source::Worktree));
        let authors: std::collections::BTreeSet<_> = h.versions.iter().filter_map(|v| v.author.clone()).collect();
        assert!(authors.len() >= 2, "{authors:?}");
    }
}
