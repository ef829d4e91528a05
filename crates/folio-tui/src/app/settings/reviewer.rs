//! Who reviews, when `$USER` does not say: folio asks once (a prompt in the inbox) and
//! remembers the answer per user in its config dir (`reviewer`, one line `human:NAME`).
use std::path::{Path, PathBuf};

/// The actor recorded when nobody is known: the inbox asks before a verdict uses it.
pub const UNKNOWN: &str = "human:unknown";

/// The file the answer is kept in, beside the user's config.toml.
pub fn file(config_dir: &Path) -> PathBuf {
    config_dir.join("reviewer")
}

/// The remembered reviewer, when the file holds a valid `KIND:ID`.
pub fn load(file: &Path) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let actor = text.trim();
    (actor != UNKNOWN).then(|| actor_from(actor)).flatten()
}

/// `ann` → `human:ann`; `human:ann` stays; empty, spaced or `KIND:` names are refused.
pub fn actor_from(answer: &str) -> Option<String> {
    let answer = answer.trim();
    if answer.is_empty() || answer.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    match answer.split_once(':') {
        Some((kind, id)) if !kind.is_empty() && !id.is_empty() => Some(answer.to_string()),
        Some(_) => None,
        None => Some(format!("human:{answer}")),
    }
}

/// Keep the answer for the next run (background work).
pub fn save(file: &Path, actor: &str) -> Result<(), String> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot remember the reviewer ({e})", dir.display()))?;
    }
    folio_core::store::read::fsio::write_atomic(file, format!("{actor}\n").as_bytes())
        .map_err(|e| format!("{}: cannot remember the reviewer ({e})", file.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_become_actors_and_survive_a_restart() {
        assert_eq!(actor_from(" ann "), Some("human:ann".into()));
        assert_eq!(actor_from("agent:bot"), Some("agent:bot".into()));
        assert_eq!(actor_from("ann lee"), None);
        assert_eq!(actor_from(":ann"), None);
        assert_eq!(actor_from(""), None);
        let dir = tempfile::tempdir().unwrap();
        let f = file(&dir.path().join("folio"));
        assert_eq!(load(&f), None);
        save(&f, "human:ann").unwrap();
        assert_eq!(load(&f), Some("human:ann".into()));
    }
}
