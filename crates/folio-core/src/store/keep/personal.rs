//! What folio keeps for one person about one store (recent recall queries), outside the store:
//! reading a store never writes into it. `$FOLIO_STATE_DIR`, else `$XDG_STATE_HOME/folio`, else
//! `~/.local/state/folio`; one folder per store, named by a digest of its canonical root.
use std::path::{Path, PathBuf};

/// The user's state folder for folio, when the environment names one.
pub fn base_from_env() -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    if let Some(dir) = std::env::var_os("FOLIO_STATE_DIR").and_then(absolute) {
        return Some(dir);
    }
    let xdg = std::env::var_os("XDG_STATE_HOME").and_then(absolute);
    let home = || std::env::var_os("HOME").and_then(absolute).map(|h| h.join(".local/state"));
    xdg.or_else(home).map(|b| b.join("folio"))
}

/// The folder for the store at `root` under `base`: a readable name plus a digest of the
/// canonical root, so two checkouts of one repository keep apart and a moved one starts afresh.
pub fn store_dir(base: &Path, root: &Path) -> PathBuf {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let name: String = root
        .file_name()
        .map(|n| n.to_string_lossy().chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').take(32).collect())
        .unwrap_or_default();
    let digest = crate::store::model::digest::of(root.as_os_str().as_encoded_bytes());
    base.join("stores").join(format!("{name}-{}", &crate::store::model::digest::hex(&digest)[..20]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_folder_per_canonical_root() {
        let base = tempfile::tempdir().unwrap();
        let stores = tempfile::tempdir().unwrap();
        let (a, b) = (stores.path().join("wiki"), stores.path().join("other"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        let da = store_dir(base.path(), &a);
        assert!(da.starts_with(base.path().join("stores")));
        assert!(da.file_name().unwrap().to_string_lossy().starts_with("wiki-"));
        assert_eq!(da, store_dir(base.path(), &a.join("../wiki")));
        assert_ne!(da, store_dir(base.path(), &b));
    }
}
