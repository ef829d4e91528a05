//! A verdict's file changes, built up in memory before anything is written: several verdicts
//! (a bulk decision, a merge) may touch the same file, so each reads the text as the earlier
//! ones left it. Every file remembers the digest it was read with; applying turns the draft
//! into hash-checked writes, so a file an agent changed meanwhile is a conflict.
use std::collections::BTreeMap;

use super::ReviewError;
use crate::store::write::changeset::{Write, unified_diff};
use crate::store::write::journal::Role;
use crate::store::{Store, model::digest};

#[derive(Debug, Clone, PartialEq)]
enum Fate {
    /// Stays where it is with `text` (possibly unchanged).
    Keep,
    /// Moves to this path (relative to the root; may lead beside it, as evolve's `vetoed/`).
    Move(String),
    /// Goes into the folio archive.
    Archive,
}

#[derive(Debug, Clone)]
struct FileDraft {
    digest: String,
    original: String,
    text: String,
    fate: Fate,
    /// What stays at the path when the file moves away or is archived ("leave a stub").
    stub: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Draft {
    files: BTreeMap<String, FileDraft>,
}

impl Draft {
    /// The text of `path` as this draft has it (read from disk the first time).
    pub fn text(&mut self, store: &Store, path: &str) -> Result<&mut String, ReviewError> {
        if !self.files.contains_key(path) {
            let bytes = store.storage().read(path).map_err(|e| ReviewError::refused(format!("{path}: {e}")))?;
            if memchr::memchr(0, &bytes).is_some() {
                return Err(ReviewError::refused(format!("{path}: binary content; folio does not rewrite it")));
            }
            let text = String::from_utf8(bytes.clone())
                .map_err(|_| ReviewError::refused(format!("{path}: not valid UTF-8; folio does not rewrite it")))?;
            let fd =
                FileDraft { digest: digest::of(&bytes), original: text.clone(), text, fate: Fate::Keep, stub: None };
            self.files.insert(path.to_string(), fd);
        }
        Ok(&mut self.files.get_mut(path).expect("inserted above").text)
    }

    /// Set the whole text of `path` (read first so its digest is known).
    pub fn set_text(&mut self, store: &Store, path: &str, text: String) -> Result<(), ReviewError> {
        *self.text(store, path)? = text;
        Ok(())
    }

    pub fn move_to(&mut self, store: &Store, path: &str, to: &str) -> Result<(), ReviewError> {
        if store.root.join(to).exists() {
            return Err(ReviewError::refused(format!("{to}: already exists; nothing was moved")));
        }
        self.text(store, path)?;
        self.files.get_mut(path).expect("read above").fate = Fate::Move(to.to_string());
        Ok(())
    }

    pub fn archive(&mut self, store: &Store, path: &str) -> Result<(), ReviewError> {
        self.text(store, path)?;
        self.files.get_mut(path).expect("read above").fate = Fate::Archive;
        Ok(())
    }

    /// Leave `text` at `path`, which this draft moves away or archives, so links into it keep
    /// resolving.
    pub fn leave_stub(&mut self, path: &str, text: String) -> Result<(), ReviewError> {
        match self.files.get_mut(path) {
            Some(f) if f.fate != Fate::Keep => {
                f.stub = Some(text);
                Ok(())
            }
            _ => Err(ReviewError::refused(format!("{path}: stays where it is; no stub is needed"))),
        }
    }

    /// The text `path` ends with, or None when it leaves its place.
    pub fn result(&self, path: &str) -> Option<&str> {
        self.files.get(path).filter(|f| f.fate == Fate::Keep).map(|f| f.text.as_str())
    }

    /// Files that leave the active set to the folio archive.
    pub fn archived(&self) -> Vec<(&str, &str)> {
        self.files
            .iter()
            .filter(|(_, f)| f.fate == Fate::Archive)
            .map(|(p, f)| (p.as_str(), f.original.as_str()))
            .collect()
    }

    /// Whether the draft changes `path` (its text or its place).
    pub fn is_changed(&self, path: &str) -> bool {
        self.files.get(path).is_some_and(|f| f.fate != Fate::Keep || f.text != f.original)
    }

    /// Files that move, with where to.
    pub fn moves(&self) -> Vec<(&str, &str)> {
        self.files
            .iter()
            .filter_map(|(p, f)| match &f.fate {
                Fate::Move(to) => Some((p.as_str(), to.as_str())),
                _ => None,
            })
            .collect()
    }

    /// Files the draft changes (untouched reads are dropped).
    pub fn changed_paths(&self) -> Vec<&str> {
        self.files.iter().filter(|(p, _)| self.is_changed(p)).map(|(p, _)| p.as_str()).collect()
    }

    /// The writes the engine performs, each checked against the digest the draft read.
    pub fn writes(&self) -> Vec<Write> {
        let mut out = Vec::new();
        let edit = |path: &str, expected: Option<String>, after: Option<Vec<u8>>| Write {
            path: path.to_string(),
            expected,
            after,
            role: Role::Edit,
        };
        for (path, f) in &self.files {
            match &f.fate {
                Fate::Keep if f.text == f.original => {}
                Fate::Keep => out.push(edit(path, Some(f.digest.clone()), Some(f.text.clone().into_bytes()))),
                Fate::Move(to) => {
                    out.push(edit(to, None, Some(f.text.clone().into_bytes())));
                    out.push(edit(path, Some(f.digest.clone()), f.stub.clone().map(String::into_bytes)));
                }
                Fate::Archive => out.push(edit(path, Some(f.digest.clone()), f.stub.clone().map(String::into_bytes))),
            }
        }
        out
    }

    /// A unified diff of every change (what a confirm dialog or `--dry-run` shows).
    pub fn diff(&self) -> String {
        let mut out = String::new();
        for (path, f) in &self.files {
            let a = format!("a/{path}");
            out += &match &f.fate {
                Fate::Keep => unified_diff(&f.original, &f.text, &a, &format!("b/{path}")),
                Fate::Move(to) => unified_diff(&f.original, &f.text, &a, &format!("b/{to}")),
                Fate::Archive => {
                    let mut d = unified_diff(&f.original, "", &a, "/dev/null");
                    d.insert_str(0, &format!("# {path}: archived in the folio state\n"));
                    d
                }
            };
            if let Some(stub) = &f.stub {
                out += &format!("# {path}: a stub stays in its place\n");
                out += &unified_diff("", stub, "/dev/null", &format!("b/{path}"));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_accumulate_and_unchanged_reads_write_nothing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "one\n").unwrap();
        std::fs::write(dir.path().join("b.md"), "two\n").unwrap();
        std::fs::write(dir.path().join("bin.md"), b"x\0y").unwrap();
        let store = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
        let mut d = Draft::default();
        d.text(&store, "a.md").unwrap().push_str("more\n");
        d.text(&store, "a.md").unwrap().push_str("again\n");
        d.text(&store, "b.md").unwrap();
        assert_eq!(d.result("a.md"), Some("one\nmore\nagain\n"));
        assert_eq!(d.changed_paths(), ["a.md"]);
        let w = d.writes();
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].expected.as_deref(), Some(digest::of(b"one\n").as_str()));
        assert!(d.text(&store, "bin.md").unwrap_err().to_string().contains("bin.md: binary"));
        d.archive(&store, "b.md").unwrap();
        assert_eq!(d.archived(), [("b.md", "two\n")]);
        assert!(d.diff().contains("# b.md: archived"));
    }
}
