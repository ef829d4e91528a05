//! Link paths: the folder a link is written in, and `dir/rel` with `.` and `..` resolved
//! without ever climbing above the store root.
use std::borrow::Cow;

/// The folder of a linking file, and whether its path needs normalising (`is_plain_path`):
/// asked once per file, not once per link.
pub struct LinkDir<'a> {
    dir: &'a str,
    plain: bool,
}

impl<'a> LinkDir<'a> {
    pub(super) const ROOT: LinkDir<'static> = LinkDir { dir: "", plain: true };

    /// The folder, relative to the store root.
    pub fn dir(&self) -> &'a str {
        self.dir
    }

    /// The folder of the file at `from` (a relative path).
    pub fn of(from: &'a str) -> Self {
        let dir = crate::store::model::relpath::parent(from);
        LinkDir { dir, plain: is_plain_path(dir) }
    }
}

pub(super) fn join(dir: &str, rel: &str) -> String {
    if dir.is_empty() { rel.to_string() } else { format!("{dir}/{rel}") }
}

/// `s` without its trailing `.md`s, as `trim_end_matches(".md")` gives it, without the substring
/// searcher that builds for each call (and this is asked of every wikilink).
pub(super) fn trim_md(mut s: &str) -> &str {
    while let Some(rest) = s.strip_suffix(".md") {
        s = rest;
    }
    s
}

/// A wikilink target before its `#heading` or `#^block`, trimmed: what the rules look up.
pub(super) fn wiki_name(target: &str) -> &str {
    memchr::memchr(b'#', target.as_bytes()).map_or(target, |end| &target[..end]).trim()
}

/// Whether `s` holds a `/` (a path, not a name): memchr's, not the standard library's
/// general search, for the short strings names are.
pub(super) fn has_slash(s: &str) -> bool {
    memchr::memchr(b'/', s.as_bytes()).is_some()
}

/// `s.to_lowercase()`, borrowed when that changes nothing (ids and paths usually).
pub(super) fn lower(s: &str) -> Cow<'_, str> {
    if s.bytes().any(|b| b.is_ascii_uppercase() || !b.is_ascii()) {
        Cow::Owned(s.to_lowercase())
    } else {
        Cow::Borrowed(s)
    }
}

/// `dir/rel` with `.` and `..` resolved, built in one buffer; `None` when it climbs above the
/// root. The same result as `normalize(&join(dir, rel))`.
#[cfg(test)]
fn normalize_join(dir: &str, rel: &str) -> Option<String> {
    let mut out = String::new();
    normalize_join_into(&LinkDir { dir, plain: is_plain_path(dir) }, rel, &mut out).then_some(out)
}

/// `normalize_join` into `out` (cleared first; the caller's buffer serves link after link:
/// a `String` per link would be an allocation per link); `false` when the
/// path climbs above the root.
pub(super) fn normalize_join_into(from: &LinkDir, mut rel: &str, out: &mut String) -> bool {
    out.clear();
    // The usual link: a few `../` or `./` then a plain path, from a plain folder. Climb by
    // cutting `dir` and copy the rest; anything else takes the general walk below.
    let (mut dir, plain_dir) = (from.dir, from.plain);
    // (A plain folder's parent is plain.)
    if plain_dir {
        loop {
            if let Some(r) = rel.strip_prefix("../") {
                if dir.is_empty() {
                    return false;
                }
                (dir, rel) = (crate::store::model::relpath::parent(dir), r);
            } else if let Some(r) = rel.strip_prefix("./") {
                rel = r;
            } else {
                break;
            }
        }
    }
    if plain_dir && is_plain_path(rel) {
        out.push_str(dir);
        if !dir.is_empty() && !rel.is_empty() {
            out.push('/');
        }
        out.push_str(rel);
        return true;
    }
    for part in segments(dir).chain(segments(rel)) {
        match part {
            "" | "." => {}
            ".." => {
                if out.is_empty() {
                    return false;
                }
                out.truncate(out.rfind('/').unwrap_or(0));
            }
            p => {
                if !out.is_empty() {
                    out.push('/');
                }
                out.push_str(p);
            }
        }
    }
    true
}

/// A relative path with nothing to normalise: no empty, `.` or `..` segment (the empty
/// path counts as plain).
pub(super) fn is_plain_path(s: &str) -> bool {
    let b = s.as_bytes();
    let (Some(&first), Some(&last)) = (b.first(), b.last()) else { return true };
    // Every empty, `.` or `..` segment shows as a leading `/` or `.`, a trailing `/`, or a
    // `//` or `/.` inside: without any of those (most paths), plain, by one test that
    // vectorises; otherwise the exact walk below decides.
    let n = b.len() - 1;
    let slash_then = b[..n]
        .iter()
        .zip(&b[1..])
        .fold(0u8, |acc, (&x, &y)| acc | u8::from(x == b'/') & (u8::from(y == b'/') | u8::from(y == b'.')));
    if slash_then == 0 && !matches!(first, b'/' | b'.') && last != b'/' {
        return true;
    }
    // Each segment must neither be empty nor `.` / `..` (a plain byte loop: paths are short,
    // and iterating over the slashes and dots with the memchr crate costs more).
    crate::store::model::relpath::all_parts(s, |seg| !matches!(seg, b"" | b"." | b".."))
}

/// `s.split('/')` by a plain byte loop: paths are short, and `str::split`'s searcher setup
/// costs more than the search.
pub(super) fn segments(s: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(s);
    std::iter::from_fn(move || {
        let r = rest?;
        match r.bytes().position(|b| b == b'/') {
            Some(i) => {
                rest = Some(&r[i + 1..]);
                Some(&r[..i])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

/// Resolve `.` and `..`; `None` when the path climbs above the root.
pub fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// The last component of a relative path.
pub(super) fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_helpers_cut_as_the_standard_library_would() {
        for s in ["", ".md", "a.md", "a.md.md", "a.mdx", "a .md ", "Note#Head", "#x", " a/b#c ", "é.md#^blk", "a#b#c"]
        {
            assert_eq!(trim_md(s), s.trim_end_matches(".md"), "{s:?}");
            assert_eq!(wiki_name(s), s.split('#').next().unwrap_or(s).trim(), "{s:?}");
            assert_eq!(has_slash(s), s.contains('/'), "{s:?}");
        }
    }

    #[test]
    fn normalize_join_matches_join_then_normalize() {
        for (dir, rel) in [
            ("a/b", "../c/x.md"),
            ("a/b", "./x.md"),
            ("", "x.md"),
            ("a", "../../x.md"),
            ("a/b", "../../x.md"),
            ("a", "b/../../c"),
            ("a//b", "c/./d/"),
            ("", ".."),
            ("a", ""),
            ("", ""),
            ("a/b/c", "../../../x.md"),
            ("a/b", "../../../x.md"),
            ("a/b", "./../c/./d.md"),
            ("a/b", "../c/../d.md"),
            ("a/b", "../.."),
            ("a/b", "../c/"),
            ("a/./b", "x.md"),
            ("a/b", ".hidden/x.md"),
            ("a", "..x/y.md"),
            ("", "./"),
            ("a", "../"),
        ] {
            assert_eq!(normalize_join(dir, rel), normalize(&join(dir, rel)), "{dir} + {rel}");
        }
    }

    proptest::proptest! {
        #[test]
        fn normalize_join_matches_join_then_normalize_on_any_path(dir in "[a./]{0,8}", rel in "[a./]{0,10}") {
            proptest::prop_assert_eq!(normalize_join(&dir, &rel), normalize(&join(&dir, &rel)));
        }
    }

    proptest::proptest! {
        #[test]
        fn plain_paths_have_no_empty_or_dot_segment(s in "[a./]{0,12}") {
            let reference = s.is_empty() || s.split('/').all(|seg| !matches!(seg, "" | "." | ".."));
            proptest::prop_assert_eq!(is_plain_path(&s), reference, "{:?}", s);
        }
    }

    #[test]
    fn segments_split_like_str_split() {
        for s in ["", "/", "a", "a/b", "/a/", "a//b", "é/ü/"] {
            assert_eq!(segments(s).collect::<Vec<_>>(), s.split('/').collect::<Vec<_>>(), "{s:?}");
        }
    }

    #[test]
    fn normalize_refuses_to_climb_out() {
        assert_eq!(normalize("a/./b/../c").as_deref(), Some("a/c"));
        assert_eq!(normalize("a/../../b"), None);
    }
}
