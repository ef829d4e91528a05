//! A verdict bound to what the person read: `review show --json` and `list --json` give each
//! item's `hash` (the digest of its text), and a decision made with `--expect` that digest is
//! refused when an agent changed the entity since — with the change, where folio still has the
//! text that was read (an approved snapshot or one of its own copies).
use super::ReviewError;
use super::ledger::Ledger;
use crate::store::model::digest;
use crate::store::write::changeset::unified_diff;
use crate::store::write::state::State;
use crate::store::{EntityIdx, Store};

/// Refuse unless the text of entity `idx` still has digest `expected`.
pub fn check(store: &Store, idx: EntityIdx, expected: &str) -> Result<(), ReviewError> {
    let e = store.entity(idx);
    let now = store.read_entity_text(idx).map_err(|err| ReviewError::refused(err.to_string()))?;
    let now_digest = digest::of(now.as_bytes());
    if now_digest == expected.trim() {
        return Ok(());
    }
    let change = match read_before(store, expected.trim()) {
        Some(then) => unified_diff(&then, &now, &format!("read/{}", e.path), &format!("now/{}", e.path)),
        None => format!("(folio keeps no copy of the text read; it is now {now_digest})\n"),
    };
    Err(ReviewError::refused(format!(
        "{}: `{}` changed since it was read (expected {}, now {now_digest}); nothing was decided or written. \
         Read it again (`folio review show {} --json`) and decide on what it says now:\n{change}",
        e.path,
        e.id,
        expected.trim(),
        e.id
    )))
}

/// The text with this digest, if folio kept it: an approved snapshot or a before/after copy.
fn read_before(store: &Store, digest: &str) -> Option<String> {
    let approved = Ledger::open(store).approved_text(digest);
    let kept = || {
        State::for_store(&store.root, store.kind())
            .object(digest)
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    approved.or_else(kept)
}

/// `[ID=]DIGEST` as given to `--expect`: the entity it names (None: the only target) and the digest.
pub fn parse(spec: &str) -> (Option<&str>, &str) {
    match spec.rsplit_once('=') {
        Some((id, d)) if d.starts_with("sha256:") => (Some(id), d),
        _ => (None, spec),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_entity_is_refused_with_the_change() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "---\ntitle: A\n---\nread this\n").unwrap();
        let store = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
        let idx = store.find("a").unwrap();
        let seen = digest::of(store.read_entity_text(idx).unwrap().as_bytes());
        check(&store, idx, &seen).unwrap();
        // folio kept a copy of what was read (as a write's before-image would be).
        State::for_store(dir.path(), store.kind()).put_object(b"---\ntitle: A\n---\nread this\n").unwrap();
        std::fs::write(dir.path().join("a.md"), "---\ntitle: A\n---\nan agent wrote this\n").unwrap();
        let store = Store::load(dir.path(), crate::store::dialect::vault::KIND, "test".into());
        let err = check(&store, store.find("a").unwrap(), &seen).unwrap_err().to_string();
        assert!(err.contains("changed since it was read") && err.contains("nothing was decided"), "{err}");
        assert!(err.contains("-read this") && err.contains("+an agent wrote this"), "{err}");
        assert_eq!(parse("a=sha256:00"), (Some("a"), "sha256:00"));
        assert_eq!(parse("sha256:00"), (None, "sha256:00"));
        assert_eq!(parse("x=y=sha256:1"), (Some("x=y"), "sha256:1"));
    }
}
