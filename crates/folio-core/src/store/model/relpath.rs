//! Store-relative paths: `/`-separated strings relative to the store root, as every part of the
//! model names files.
use std::path::Path;

/// The folder of a relative path (`a/b/c.md` → `a/b`; `c.md` → ``).
pub fn parent(rel: &str) -> &str {
    // The memchr crate's search, faster than std's `rsplit_once` (its own memrchr): this runs
    // for every link, catalog run and folder (docs/benchmarks.md, "Link resolution figures").
    memchr::memrchr(b'/', rel.as_bytes()).map_or("", |i| &rel[..i])
}

/// The last component of a relative path (`a/b/c.md` → `c.md`).
pub fn file_name(rel: &str) -> &str {
    memchr::memrchr(b'/', rel.as_bytes()).map_or(rel, |i| &rel[i + 1..])
}

/// Every ancestor folder of a relative path, nearest last (`a/b/c.md` → `a`, `a/b`).
pub fn ancestors(rel: &str) -> impl Iterator<Item = &str> {
    rel.match_indices('/').map(move |(i, _)| &rel[..i])
}

/// A relative `Path` as a store-relative string; `None` when a component is not UTF-8.
pub fn from_path(rel: &Path) -> Option<String> {
    // The walker's paths are already plain `a/b/c.md` (no `//`, no `.` parts): on Unix their
    // text is the answer, without splitting into components and joining them again.
    #[cfg(unix)]
    if let Some(s) = rel.to_str().filter(|s| is_plain(s)) {
        return Some(s.to_string());
    }
    let parts: Vec<&str> = rel.components().map(|c| c.as_os_str().to_str()).collect::<Option<_>>()?;
    Some(parts.join("/"))
}

/// `path` as a write plan names it from `root`: relative inside it, `../…` beside it (a state
/// folder or log kept next to the root), else whole.
pub fn from_root(root: &Path, path: &Path) -> String {
    if let Ok(rel) = path.strip_prefix(root) {
        return rel.to_string_lossy().replace('\\', "/");
    }
    match (root.parent(), path.file_name()) {
        (Some(parent), Some(_)) if path.starts_with(parent) => {
            format!("../{}", path.strip_prefix(parent).unwrap_or(path).to_string_lossy().replace('\\', "/"))
        }
        _ => path.to_string_lossy().into_owned(),
    }
}

/// `path` relative to `root`, as `from_path` gives it.
pub fn relative_to(root: &Path, path: &Path) -> Option<String> {
    // Byte prefix first (the walker joins names onto `root` itself); components when that fails.
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let (root_b, path_b) = (root.as_os_str().as_bytes(), path.as_os_str().as_bytes());
        if let Some(rest) = path_b.strip_prefix(root_b)
            && let Some(rest) = rest.strip_prefix(b"/").or_else(|| root_b.ends_with(b"/").then_some(rest))
            && let Ok(rest) = std::str::from_utf8(rest)
            && is_plain(rest)
        {
            return Some(rest.to_string());
        }
    }
    from_path(path.strip_prefix(root).ok()?)
}

/// Non-empty, and no empty or `.` part between `/`s (the parts `Path::components` would drop).
fn is_plain(s: &str) -> bool {
    all_parts(s, |part| !matches!(part, b"" | b"."))
}

/// Whether every `/`-separated part of `s` passes `ok` (the empty string has one empty part).
/// A byte loop: `split('/')`'s searcher setup cost more than the search on these short paths.
pub(crate) fn all_parts(s: &str, ok: impl Fn(&[u8]) -> bool) -> bool {
    let b = s.as_bytes();
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        if c == b'/' {
            if !ok(&b[start..i]) {
                return false;
            }
            start = i + 1;
        }
    }
    ok(&b[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn plain_means_no_empty_or_dot_part(s in "[a./]{0,10}") {
            let reference = !s.is_empty() && s.split('/').all(|part| !part.is_empty() && part != ".");
            proptest::prop_assert_eq!(is_plain(&s), reference, "{:?}", s);
        }
    }

    #[test]
    fn parents_and_ancestors() {
        assert_eq!(parent("a/b/c.md"), "a/b");
        assert_eq!(parent("c.md"), "");
        assert_eq!(parent("é/ü/"), "é/ü");
        assert_eq!(file_name("a/b/c.md"), "c.md");
        assert_eq!(file_name("c.md"), "c.md");
        assert_eq!(file_name("a/"), "");
        assert_eq!(ancestors("a/b/c.md").collect::<Vec<_>>(), ["a", "a/b"]);
        assert_eq!(ancestors("c.md").count(), 0);
        assert_eq!(from_path(Path::new("a/b/c.md")).as_deref(), Some("a/b/c.md"));
        assert_eq!(from_path(Path::new("a//b/./c.md")).as_deref(), Some("a/b/c.md"));
        assert_eq!(from_path(Path::new("./a/../c.md")).as_deref(), Some("./a/../c.md"));
        assert_eq!(from_path(Path::new("a/../c.md")).as_deref(), Some("a/../c.md"));
    }

    #[test]
    fn relative_to_the_root_with_or_without_a_trailing_slash() {
        for root in ["/s/store", "/s/store/", "store", "./store"] {
            let path = Path::new(root).join("a/b.md");
            assert_eq!(relative_to(Path::new(root), &path).as_deref(), Some("a/b.md"), "{root}");
        }
        assert_eq!(relative_to(Path::new("/s/store"), Path::new("/s/storex/a.md")), None);
        assert_eq!(relative_to(Path::new("/s/store"), Path::new("/s/store//a/./b.md")).as_deref(), Some("a/b.md"));
        assert_eq!(relative_to(Path::new("/s/store"), Path::new("/s/store")), Some(String::new()));
    }
}
