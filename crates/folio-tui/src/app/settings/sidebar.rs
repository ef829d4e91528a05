//! The catalog sidebar's width, as a share of the terminal: 30 % by default, `<`/`>` or a drag
//! of its border change it, and it is remembered per user in folio's state folder
//! (`$FOLIO_STATE_DIR` or `$XDG_STATE_HOME/folio`, file `sidebar`), never in a store.
use std::path::{Path, PathBuf};

/// Percent of the terminal's width.
pub const DEFAULT: u16 = 30;
pub const MIN: u16 = 15;
pub const MAX: u16 = 70;
/// What one `<` or `>` changes.
pub const STEP: u16 = 5;

pub fn clamp(percent: u16) -> u16 {
    percent.clamp(MIN, MAX)
}

/// The file the width is kept in.
pub fn file(state_base: &Path) -> PathBuf {
    state_base.join("sidebar")
}

/// The review inbox's queue column, as a share of the inbox: 40 % by default, `<`/`>` in the
/// inbox change it (not the catalog's), kept beside the sidebar's (file `inbox-list`).
pub const INBOX_DEFAULT: u16 = 40;

pub fn inbox_file(state_base: &Path) -> PathBuf {
    state_base.join("inbox-list")
}

/// The remembered width, when the file holds one.
pub fn load(file: &Path) -> Option<u16> {
    std::fs::read_to_string(file).ok()?.trim().trim_end_matches('%').parse().ok().map(clamp)
}

/// Keep the width for the next run (background work).
pub fn save(file: &Path, percent: u16) -> Result<(), String> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot remember the sidebar ({e})", dir.display()))?;
    }
    folio_core::store::read::fsio::write_atomic(file, format!("{}\n", clamp(percent)).as_bytes())
        .map_err(|e| format!("{}: cannot remember the sidebar ({e})", file.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_survives_a_restart_within_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let f = file(dir.path());
        assert_eq!(load(&f), None);
        save(&f, 45).unwrap();
        assert_eq!(load(&f), Some(45));
        save(&f, 99).unwrap();
        assert_eq!(load(&f), Some(MAX));
        std::fs::write(&f, "nonsense").unwrap();
        assert_eq!(load(&f), None);
    }
}
