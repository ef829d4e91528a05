//! The one gate every write plan passes before its journal is opened: each path it creates,
//! replaces, moves or archives must, once `..` and the symlinks of its existing ancestors are
//! resolved, lie inside the store root or inside folio's own state folder. Besides those two,
//! a store may name the few places its format itself writes beside the root (its log file,
//! evolve's `.evolve/vetoed/`), through `Dialect::write_areas` and `audit::log_path`.
//! One path outside refuses the whole plan, with a message naming it, before anything is
//! written — agent-written ids, titles, link targets and move destinations never steer a
//! write out of the store.
use std::path::{Component, Path, PathBuf};

use super::changeset::WriteError;
use super::fs_ops::{self, lexical};
use super::state::State;
use crate::store::{Store, write::audit};

/// The places a store's writes may reach, resolved once per plan.
#[derive(Debug, Clone)]
pub struct WriteGate {
    /// The store root as given (relative plan paths are joined to it).
    root: PathBuf,
    /// Folders whose whole subtree may be written (resolved).
    folders: Vec<PathBuf>,
    /// Single files beside the root the format writes (resolved).
    files: Vec<PathBuf>,
}

impl WriteGate {
    /// The gate of `store`: its root, folio's state folder, its log, and its format's own areas.
    pub fn for_store(store: &Store) -> WriteGate {
        let mut folders = vec![store.root.clone(), State::for_store(&store.root, store.kind()).dir];
        folders.extend(store.dialect.write_areas());
        let log = audit::log_path(&store.root, store.kind());
        // The git rule for the log sits beside it (`team`).
        let files = vec![log.with_file_name(".gitattributes"), log];
        WriteGate::new(&store.root, folders, files)
    }

    /// A gate allowing `folders` (whole subtrees) and `files` (exactly), relative plan paths
    /// being taken from `root`.
    pub fn new(root: &Path, folders: Vec<PathBuf>, files: Vec<PathBuf>) -> WriteGate {
        WriteGate {
            root: root.to_path_buf(),
            folders: folders.iter().map(|f| resolve(f)).collect(),
            files: files.iter().map(|f| resolve(f)).collect(),
        }
    }

    /// Let `rel` (relative to the root, or absolute) through, or refuse the plan naming it:
    /// a path outside the places above, or one that goes through a symbolic link.
    pub fn check(&self, rel: &str) -> Result<(), WriteError> {
        let resolved = resolve(&self.root.join(rel));
        let inside =
            self.folders.iter().any(|f| resolved.starts_with(f) && resolved != *f) || self.files.contains(&resolved);
        if inside {
            return self.check_no_link(rel);
        }
        Err(WriteError::Outside(format!(
            "{rel}: resolves to {}, outside the store root {} and folio's state folder; \
             the whole plan was refused and nothing was written",
            resolved.display(),
            self.root.display()
        )))
    }

    /// Refuse a path that is a symbolic link or lies in a linked folder below the store's top
    /// (the root, or the folder beside it a format writes in): a hostile repository's
    /// `log.md -> ~/.ssh/id_ed25519` or linked `.folio` would have folio copy what the link
    /// names into the store, or write its state elsewhere. Links are never followed for writing.
    pub fn check_no_link(&self, rel: &str) -> Result<(), WriteError> {
        match fs_ops::link_on_the_way(&self.root, Path::new(rel)) {
            None => Ok(()),
            Some(link) => Err(WriteError::Link(format!(
                "{rel}: {} is a symbolic link{}; folio never writes through a link into store state or \
                 folio's own — the whole plan was refused and nothing was written",
                link.display(),
                std::fs::read_link(&link).map(|t| format!(" (to {})", t.display())).unwrap_or_default()
            ))),
        }
    }

    /// Check every path of a plan; the first one outside refuses it all.
    pub fn check_all<'a>(&self, paths: impl IntoIterator<Item = &'a str>) -> Result<(), WriteError> {
        paths.into_iter().try_for_each(|p| self.check(p))
    }
}

/// `path` with its longest existing ancestor canonicalised (symlinks and `..` resolved by the
/// file system) and the rest, which does not exist yet, normalised lexically.
pub fn resolve(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    // Components below the longest existing ancestor, innermost first.
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    let base = loop {
        if let Ok(canon) = existing.canonicalize() {
            break canon;
        }
        let Some(parent) = existing.parent().map(Path::to_path_buf) else { break lexical(&existing) };
        match existing.components().next_back() {
            Some(Component::Normal(name)) => rest.push(name.to_os_string()),
            // `missing/..`: the folder does not exist, so `..` folds lexically below.
            Some(Component::ParentDir) => rest.push("..".into()),
            _ => {}
        }
        if parent.as_os_str().is_empty() {
            break PathBuf::new();
        }
        existing = parent;
    };
    let mut out = base;
    for c in rest.iter().rev() {
        out.push(c);
    }
    lexical(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(root: &Path) -> WriteGate {
        WriteGate::new(root, vec![root.to_path_buf(), root.join(".folio")], vec![root.parent().unwrap().join("log")])
    }

    #[test]
    fn paths_inside_the_root_and_the_state_folder_pass() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("store");
        std::fs::create_dir_all(root.join("a")).unwrap();
        let g = gate(&root);
        for ok in ["a/x.md", "new/deep/x.md", "a/../b.md", ".folio/undo/1.json", "a/./x.md", "../store/x.md"] {
            assert!(g.check(ok).is_ok(), "{ok}");
        }
        assert!(g.check("../log").is_ok(), "the format's own log file beside the root");
    }

    #[test]
    fn escapes_by_dots_absolute_paths_and_the_root_itself_are_refused() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("store");
        std::fs::create_dir_all(&root).unwrap();
        let g = gate(&root);
        let outside = t.path().join("elsewhere.md");
        for bad in ["../x.md", "a/../../x.md", "missing/../../x.md", "../vetoed/g/x.md", "", ".", "../log2"] {
            let err = g.check(bad).unwrap_err();
            assert!(matches!(err, WriteError::Outside(_)), "{bad}");
            assert!(err.to_string().starts_with(&format!("{bad}: ")), "names the path: {err}");
        }
        assert!(g.check(outside.to_str().unwrap()).is_err());
        assert!(g.check("/etc/passwd").is_err());
        assert!(g.check_all(["a.md", "../x.md", "b.md"]).is_err(), "one path outside refuses them all");
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_folder_or_file_leading_out_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("store");
        let away = t.path().join("away");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&away).unwrap();
        std::fs::write(away.join("f.md"), "x").unwrap();
        std::os::unix::fs::symlink(&away, root.join("link")).unwrap();
        std::os::unix::fs::symlink(away.join("f.md"), root.join("f.md")).unwrap();
        std::os::unix::fs::symlink(&root, t.path().join("alias")).unwrap();
        let g = gate(&root);
        assert!(g.check("link/new.md").is_err());
        assert!(g.check("link/f.md").is_err());
        assert!(g.check("f.md").is_err(), "a file symlinked out is written through the link");
        assert!(g.check("link/../x.md").is_err(), "`..` after a symlink follows the link, as the OS does");
        // A store opened through a symlinked path is still itself.
        assert!(gate(&t.path().join("alias")).check("x.md").is_ok());
    }
}
