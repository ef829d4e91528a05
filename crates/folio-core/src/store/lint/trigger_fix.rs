//! The `legacy-trigger` fix: rename the frontmatter key `trigger` to `description`, touching
//! nothing but those bytes (the value, its quoting and every other line stay as written).
use super::Finding;
use super::fix::{self, ByteEdit, Change, Expected, Fix, content_hash};
use crate::store::model::entity::rule;
use crate::store::read::frontmatter;
use crate::store::{Store, read::load};

/// Give every `legacy-trigger` finding its fix. The key's bytes were located when the file was
/// loaded, so a file unchanged since is not read again: its fix is bound to the size and mtime
/// the store loaded it with (`Expected::Loaded`) and hashed only when applied. An evolve store
/// can have the key in every file, and reading and hashing them all again would be a large
/// share of a cold `folio lint` (docs/benchmarks.md, "Lint figures"). A file changed near the
/// load is read and hashed, as before.
pub fn attach(store: &Store, findings: &mut [Finding]) {
    use rayon::prelude::*;
    findings.par_iter_mut().filter(|f| f.rule == rule::LEGACY_TRIGGER && f.fix.is_none()).for_each(|f| {
        let Some(path) = f.path.as_deref().map(str::to_string) else { return };
        let loaded = f.entity.and_then(|i| Some((i, fix::loaded_stamp(store, i)?)));
        let (expected, range) = match loaded {
            Some((idx, stamp)) => {
                let problems = &store.entity(idx).problems;
                // The loader's text is the file's bytes only when they were UTF-8 and read whole.
                if problems.iter().any(|p| matches!(p.rule, rule::NON_UTF8 | rule::TOO_LARGE)) {
                    return;
                }
                let at = problems.iter().find(|p| p.rule == rule::LEGACY_TRIGGER).and_then(|p| p.bytes.clone());
                let Some(at) = at else { return };
                (Expected::Loaded(stamp), at.start as usize..at.end as usize)
            }
            None => {
                let Ok((bytes, false)) = store.storage().read_capped(&path, load::MAX_READ) else { return };
                let Some(range) = std::str::from_utf8(&bytes).ok().and_then(trigger_key) else { return };
                (Expected::Hash(content_hash(&bytes)), range)
            }
        };
        f.fix = Some(Box::new(Fix {
            path,
            description: "rename the key `trigger` to `description`".into(),
            expected,
            change: Change::Edits(vec![ByteEdit { range, replacement: "description".into() }]),
        }));
    });
}

/// Byte range of the top-level `trigger` key in the frontmatter block, when there is exactly one.
pub fn trigger_key(text: &str) -> Option<std::ops::Range<usize>> {
    frontmatter::top_level_key(text, "trigger")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_only_the_top_level_key() {
        let t = "---\ntype: T\ntrigger: \"when: x\"\nnested:\n  trigger: no\n---\ntrigger: body\n";
        let r = trigger_key(t).unwrap();
        assert_eq!(&t[r.clone()], "trigger");
        assert_eq!(r.start, 12);
        assert_eq!(trigger_key("---\ntriggers: x\n---\n"), None);
        assert_eq!(trigger_key("no frontmatter\ntrigger: x\n"), None);
        assert_eq!(trigger_key("---\ntrigger: a\ntrigger : b\n---\n"), None);
    }
}
