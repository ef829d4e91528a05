//! Store-relative paths: `/`-separated strings relative to the store root, as every part of the
//! model names files.
use std::path::Path;

/// The folder of a relative path (`a/b/c.md` → `a/b`; `c.md` → ``).
pub fn parent(rel: &str) -> &str {
    rel.rsplit_once('/').map(|(d, _)| d).unwrap_or("")
}

/// Every ancestor folder of a relative path, nearest last (`a/b/c.md` → `a`, `a/b`).
pub fn ancestors(rel: &str) -> impl Iterator<Item = &str> {
    rel.match_indices('/').map(move |(i, _)| &rel[..i])
}

/// A relative `Path` as a store-relative string; `None` when a component is not UTF-8.
pub fn from_path(rel: &Path) -> Option<String> {
    let parts: Vec<&str> = rel.components().map(|c| c.as_os_str().to_str()).collect::<Option<_>>()?;
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parents_and_ancestors() {
        assert_eq!(parent("a/b/c.md"), "a/b");
        assert_eq!(parent("c.md"), "");
        assert_eq!(ancestors("a/b/c.md").collect::<Vec<_>>(), ["a", "a/b"]);
        assert_eq!(ancestors("c.md").count(), 0);
        assert_eq!(from_path(Path::new("a/b/c.md")).as_deref(), Some("a/b/c.md"));
    }
}
