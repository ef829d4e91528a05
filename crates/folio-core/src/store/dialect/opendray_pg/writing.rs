//! The texts a decision of this process is writing to the database, from its rows' write until
//! it returns: read before the snapshot (`snapshot::text_at`), which takes them only after the
//! decision (`snapshot::append`). A process holding every text patches those instead
//! (`snapshot::patch`); one opened on the decision's own nodes (`part`) holds none, and what
//! the decision records of itself — the review ledger hashes the text it approved — read the
//! text the row had before, so the node showed as changed since its approval at once.
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Each written node's text by path (None: the view no longer shows it).
type Texts = HashMap<String, Option<String>>;

/// By database folder.
static WRITING: Mutex<Vec<(PathBuf, Texts)>> = Mutex::new(Vec::new());

/// The texts stay readable while this lives.
#[must_use = "the texts are forgotten when this is dropped"]
pub struct Writing {
    root: PathBuf,
}

/// `texts` (path, text as the database now has it) readable at `root` until the guard drops.
pub fn begin(root: &Path, texts: impl IntoIterator<Item = (String, Option<String>)>) -> Writing {
    let mut writing = WRITING.lock().unwrap_or_else(|e| e.into_inner());
    writing.retain(|(r, _)| r != root);
    writing.push((root.to_path_buf(), texts.into_iter().collect()));
    Writing { root: root.to_path_buf() }
}

/// The text being written at `rel` under `root`: None when no decision is writing it;
/// `Some(None)` when the decision takes it out of the view.
pub fn text(root: &Path, rel: &str) -> Option<Option<String>> {
    let writing = WRITING.lock().unwrap_or_else(|e| e.into_inner());
    writing.iter().find(|(r, _)| r == root).and_then(|(_, texts)| texts.get(rel).cloned())
}

impl Drop for Writing {
    fn drop(&mut self) {
        WRITING.lock().unwrap_or_else(|e| e.into_inner()).retain(|(r, _)| *r != self.root);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_read_while_the_guard_lives() {
        let root = Path::new("/db/writing-test");
        assert_eq!(text(root, "a.md"), None);
        {
            let _w = begin(root, [("a.md".to_string(), Some("new".to_string())), ("b.md".to_string(), None)]);
            assert_eq!(text(root, "a.md"), Some(Some("new".into())));
            assert_eq!(text(root, "b.md"), Some(None));
            assert_eq!(text(root, "c.md"), None);
            assert_eq!(text(Path::new("/db/other"), "a.md"), None);
        }
        assert_eq!(text(root, "a.md"), None, "forgotten once the decision returns");
    }
}
