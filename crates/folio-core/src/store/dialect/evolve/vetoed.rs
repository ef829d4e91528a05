//! Where a vetoed evolve entity goes. evolve recalls every file under its entities folder, so
//! a veto moves the file out of that tree, to a place evolve never reads:
//!
//! - in a project (`<project>/.evolve/entities/`): `.evolve/vetoed/<id>.md`, beside the bundle,
//!   inside the project's evolve folder (the only place beside the root folio writes to);
//! - in a bare entities folder (a published or cloned guideline repository, no `.evolve/`):
//!   `<root>/.folio/vetoed/<id>.md.vetoed`, inside folio's own state folder in the root. The
//!   folder's parent is not the store's, so nothing may be written there; and evolve's readers
//!   glob `**/*.md` into hidden folders too (`load_manifest`, the viz reader's `rglob`), so
//!   the file there does not end in `.md` (it had, and a vetoed guideline of a repository
//!   later recalled as a subscribed clone was recalled still).
use std::path::{Path, PathBuf};

use super::evolve_home;
use crate::store::write::state::State;

/// The folder vetoed entities of the store at `root` move into.
pub fn folder(root: &Path) -> PathBuf {
    match evolve_home(root) {
        Some(home) => home.join("vetoed"),
        None => State::for_store(root, crate::store::dialect::evolve::KIND).dir.join("vetoed"),
    }
}

/// Where the entity `id` moves on a veto, relative to `root` (`../vetoed/…` in a project).
pub fn path(root: &Path, id: &str) -> String {
    match evolve_home(root) {
        Some(_) => format!("../vetoed/{id}.md"),
        None => {
            let state = State::for_store(root, crate::store::dialect::evolve::KIND).dir;
            let rel = state.strip_prefix(root).unwrap_or(Path::new(".folio"));
            format!("{}/vetoed/{id}.md.vetoed", rel.to_string_lossy().replace('\\', "/"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_vetoes_beside_its_bundle() {
        let root = Path::new("/p/.evolve/entities");
        assert_eq!(path(root, "guideline/x"), "../vetoed/guideline/x.md");
        assert_eq!(folder(root), Path::new("/p/.evolve/vetoed"));
    }

    #[test]
    fn a_bare_entities_folder_vetoes_inside_its_own_root() {
        let root = Path::new("/repos/published");
        assert_eq!(path(root, "guideline/x"), ".folio/vetoed/guideline/x.md.vetoed");
        assert!(root.join(path(root, "guideline/x")).starts_with(root));
        assert_eq!(folder(root), Path::new("/repos/published/.folio/vetoed"));
    }
}
