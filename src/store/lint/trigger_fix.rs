//! The `legacy-trigger` fix: rename the frontmatter key `trigger` to `description`, touching
//! nothing but those bytes (the value, its quoting and every other line stay as written).
use super::Finding;
use super::fix::{ByteEdit, Change, Fix, content_hash};
use crate::store::model::entity::rule;
use crate::store::read::frontmatter::{self, Block};
use crate::store::{Store, read::fsio, read::load};

/// Give every `legacy-trigger` finding its fix (reads only the files concerned). In parallel:
/// a generated evolve store has the key in every file, and reading and hashing 100k files one
/// after another was ≈1.5 s of one core in `folio lint` (perf, 100k evolve).
pub fn attach(store: &Store, findings: &mut [Finding]) {
    use rayon::prelude::*;
    findings.par_iter_mut().filter(|f| f.rule == rule::LEGACY_TRIGGER && f.fix.is_none()).for_each(|f| {
        let Some(path) = f.path.clone() else { return };
        let Ok((bytes, false)) = fsio::read_capped(&store.abs_path(&path), load::MAX_READ) else { return };
        let Some(range) = std::str::from_utf8(&bytes).ok().and_then(trigger_key) else { return };
        f.fix = Some(Fix {
            path,
            description: "rename the key `trigger` to `description`".into(),
            expected_hash: Some(content_hash(&bytes)),
            change: Change::Edits(vec![ByteEdit { range, replacement: "description".into() }]),
        });
    });
}

/// Byte range of the top-level `trigger` key in the frontmatter block, when there is exactly one.
pub fn trigger_key(text: &str) -> Option<std::ops::Range<usize>> {
    let Block::Closed { inner, .. } = frontmatter::locate(text) else { return None };
    let mut found = None;
    let mut at = inner.start;
    for line in text[inner.clone()].split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("trigger")
            && rest.trim_start_matches([' ', '\t']).starts_with(':')
        {
            if found.is_some() {
                return None;
            }
            found = Some(at..at + "trigger".len());
        }
        at += line.len();
    }
    found
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
