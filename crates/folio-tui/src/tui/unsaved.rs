//! When folio is stopped (a signal, a lost terminal) with text typed in its editor that was not
//! saved, that text is kept in `$XDG_STATE_HOME/folio/unsaved/` (else
//! `~/.local/state/folio/unsaved/`, else the temp directory) so the person can find it again.
use std::path::PathBuf;

use crate::app::App;

/// The folder unsaved editor text goes to.
pub fn dir() -> PathBuf {
    let base = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("folio").join("unsaved")
}

/// Write the open editor's text when it differs from the entity's; the file written, if any.
pub fn keep(app: &App) -> Option<Result<PathBuf, String>> {
    let editor = app.model.editor.as_ref()?;
    // The whole entity as edited; when a field does not parse, at least the body as typed.
    let text = editor.entity_text().unwrap_or_else(|_| editor.body_text());
    if text == editor.seed.entity_text() {
        return None;
    }
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let name = format!("{secs}-{}.md", editor.seed.id.replace(['/', '\\'], "-"));
    let dir = dir();
    let path = dir.join(name);
    Some(
        std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(&path, text))
            .map(|()| path)
            .map_err(|e| format!("{}: {e}", dir.display())),
    )
}
