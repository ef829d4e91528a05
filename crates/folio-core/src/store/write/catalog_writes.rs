//! Which catalogs a changeset's writes regenerate, and with what bytes: one answer for the
//! engine that writes them (`file_storage`) and the preview that shows them (`preview`).
use std::borrow::Borrow;
use std::collections::{HashMap, HashSet};

use super::catalog::{self, CatalogState};
use super::changeset::Write;
use super::journal::Role;
use crate::store::{Store, model::digest};

/// The catalog writes that follow `writes` on `store`; `after` gives the store as it reads
/// once the writes are in (loaded only when the format keeps catalogs). Catalog files are read
/// from disk: the writes never include them (a catalog a plan writes itself is left alone).
/// A catalog that exists but cannot be read is an error (path, why): guessing it curated or
/// generated would rewrite it wrongly.
pub fn after_edits<S: Borrow<Store>>(
    store: &Store,
    writes: &[Write],
    after: impl FnOnce() -> S,
) -> Result<Vec<Write>, (String, String)> {
    let root = &store.root;
    let before_plans: HashMap<String, String> =
        store.dialect.catalogs(store).into_iter().map(|p| (p.path, p.content)).collect();
    if before_plans.is_empty() {
        return Ok(Vec::new());
    }
    // A catalog that matched folio's rendering before this change is folio's and takes the new
    // rendering whole; any other (hand-curated) is updated surgically (`catalog::curated`), and
    // only when its plan changed. One that was already stale is left to `folio index`.
    let mut generated_before: HashSet<&String> = HashSet::new();
    for (p, c) in &before_plans {
        match std::fs::read(root.join(p)) {
            Ok(bytes) if bytes == c.as_bytes() => {
                generated_before.insert(p);
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err((p.clone(), format!("cannot read: {e}"))),
        }
    }
    let fresh = after();
    let fresh: &Store = fresh.borrow();
    let plans = fresh.dialect.catalogs(fresh);
    let fresh_plans: HashMap<String, String> = plans.iter().map(|p| (p.path.clone(), p.content.clone())).collect();
    let mut out = Vec::new();
    let statuses = catalog::status_of(fresh, plans);
    if let Some((path, why)) = catalog::unread(&statuses) {
        return Err((path.to_string(), why.to_string()));
    }
    for s in statuses {
        let changed_by_us = before_plans.get(&s.path) != fresh_plans.get(&s.path);
        let already_written = writes.iter().any(|w| w.path == s.path);
        let generated = generated_before.contains(&s.path);
        if !(matches!(s.state, CatalogState::Stale | CatalogState::Missing) || generated)
            || !changed_by_us
            || already_written
        {
            continue;
        }
        let after = if generated { fresh_plans[&s.path].clone() } else { s.expected };
        let now = match std::fs::read(root.join(&s.path)) {
            Ok(b) => Some(b),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err((s.path.clone(), format!("cannot read: {e}"))),
        };
        out.push(Write {
            path: s.path,
            expected: now.as_deref().map(digest::of),
            after: Some(after.into_bytes()),
            role: Role::Catalog,
        });
    }
    Ok(out)
}
