//! Bringing a past version back as an ordinary folio write: a changeset that replaces the file
//! (checked against the digest of what is there now) or creates it again when it was deleted,
//! so it is journaled, logged in the store's own log and undone by `folio undo`. Git's index and
//! history are never touched: the restored file is an uncommitted change like any other edit.
use super::{History, Source};
use crate::store::Store;
use crate::store::model::digest;
use crate::store::write::audit::AuditEvent;
use crate::store::write::changeset::Changeset;

/// The write that restores version `rev` of `h` into the entity's file (None: the file already
/// holds exactly those bytes).
pub fn plan(store: &Store, h: &History, rev: &str, by: &str) -> Result<Option<Changeset>, String> {
    let v = &h.versions[h.find(rev)?];
    let Some(bytes) = &v.bytes else {
        return Err(match v.source {
            Source::Log => format!("`{}` is a log event; it records no content to restore", v.rev),
            _ => format!("`{}` deleted the file; restore the version before it", v.rev),
        });
    };
    let target = h.path.as_str();
    let now = store.storage().read(target).ok();
    if now.as_ref() == Some(bytes) {
        return Ok(None);
    }
    let title = store.entities.iter().find(|e| e.path == target).map(|e| e.title.clone()).unwrap_or(h.id.clone());
    let when = v.when.as_deref().map(|w| format!(" of {w}")).unwrap_or_default();
    let event = AuditEvent::new("restore", by, format!("restored {target} to version {}{when}", v.rev))
        .entity(&h.id, &title, target)
        .detail("rev", v.commit.clone().unwrap_or(v.rev.clone()));
    let cs = Changeset::new(event);
    Ok(Some(match now {
        Some(old) => cs.replace(target, digest::of(&old), bytes.clone()),
        None => cs.create(target, bytes.clone()),
    }))
}
