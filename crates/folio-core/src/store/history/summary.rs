//! What one version changed against the one before it, in one line: the frontmatter fields
//! that differ and the lines added and removed.
use crate::store::read::frontmatter::{self, Block, Fields};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Fields added, removed or given another value, in the newer version's order.
    pub fields: Vec<String>,
    pub added: usize,
    pub removed: usize,
}

/// A version's frontmatter fields (none when it has no block or the block does not parse).
pub fn fields(text: &str) -> Fields {
    match frontmatter::locate(text) {
        Block::Closed { inner, .. } => frontmatter::parse_yaml(&text[inner]).unwrap_or_default(),
        _ => Fields::new(),
    }
}

/// `old` → `new` (None: the file did not exist).
pub fn between(old: Option<&str>, new: Option<&str>) -> Summary {
    let (o, n) = (old.unwrap_or(""), new.unwrap_or(""));
    of_change(o, &fields(o), n, &fields(n))
}

/// `old` → `new` with each one's fields parsed already (a history parses each version once).
pub fn of_change(old: &str, old_fields: &Fields, new: &str, new_fields: &Fields) -> Summary {
    let mut changed: Vec<String> =
        new_fields.iter().filter(|(k, v)| old_fields.get(*k) != Some(*v)).map(|(k, _)| k.clone()).collect();
    changed.extend(old_fields.keys().filter(|k| !new_fields.contains_key(*k)).cloned());
    let (added, removed) = super::lines::added_removed(old, new);
    Summary { fields: changed, added, removed }
}

impl Summary {
    /// `title, tags; +3 -1`.
    pub fn line(&self) -> String {
        let lines = format!("+{} -{}", self.added, self.removed);
        if self.fields.is_empty() { lines } else { format!("{}; {lines}", self.fields.join(", ")) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_changed_fields_and_counts_lines() {
        let a = "---\ntitle: A\ntags: [x]\n---\none\ntwo\n";
        let b = "---\ntitle: B\nstatus: ok\n---\none\nthree\nfour\n";
        let s = between(Some(a), Some(b));
        assert_eq!(s.fields, ["title", "status", "tags"]);
        assert_eq!((s.added, s.removed), (4, 3));
        assert_eq!(s.line(), "title, status, tags; +4 -3");
        let created = between(None, Some("x\n"));
        assert_eq!(created.line(), "+1 -0");
        assert_eq!(between(Some(a), Some(a)).line(), "+0 -0");
    }
}
