//! opendray's PostgreSQL brain's standing facts (see `format::Format`).
use std::path::Path;

use crate::store::dialect::spec::FormatSpec;
use crate::store::dialect::format::{Format, Marker, label};
use crate::store::dialect::{Dialect, DialectKind};
use crate::store::model::entity::Entity;

pub const KIND: DialectKind = DialectKind::of(&super::spec::SPEC);

pub struct OpendrayPgFormat;

impl Format for OpendrayPgFormat {
    fn spec(&self) -> &'static FormatSpec {
        &super::spec::SPEC
    }
    fn open(&self, root: &Path) -> Box<dyn Dialect> {
        Box::new(super::OpendrayPg::open(root))
    }
    /// An edge is a row naming its end by id (`knowledge_edges.dst_id`).
    fn link_rules(&self) -> crate::store::read::resolve::LinkRules {
        crate::store::read::resolve::LinkRules { edges_by_id: true, ..Default::default() }
    }
    /// A connection string: the database is read into its snapshot, in its folder of folio's
    /// state, which is the root.
    fn locate(&self, locator: &str, archived: bool) -> Option<Result<(DialectKind, Marker), String>> {
        if !super::conn::is_locator(locator) {
            return None;
        }
        Some(super::conn::Locator::parse(locator).and_then(|at| {
            let root = super::mirror::sync(&at, archived)?;
            Ok((KIND, Marker::new(root, format!("{} (PostgreSQL)", at.redacted))))
        }))
    }
    fn located_root(&self, locator: &str, archived: bool) -> Option<(DialectKind, std::path::PathBuf)> {
        let at = super::conn::is_locator(locator).then(|| super::conn::Locator::parse(locator).ok())??;
        // Where this spelling led last time; the open then asks the server who it is.
        Some((KIND, super::mirror::known_dir(&at.redacted, archived)?))
    }
    fn shown(&self, locator: &str) -> Option<String> {
        super::conn::is_locator(locator).then(|| {
            super::conn::Locator::parse(locator)
                .map(|at| at.redacted)
                .unwrap_or_else(|_| "a PostgreSQL connection string".to_string())
        })
    }
    /// A decision's nodes alone (`part`), their rows read from the database; with `inbound`,
    /// and the nodes that may link into them (`inbound`).
    fn open_part(
        &self,
        locator: &str,
        archived: bool,
        root: &Path,
        names: &[String],
        inbound: bool,
    ) -> Option<Result<crate::store::dialect::format::Part, String>> {
        super::conn::is_locator(locator).then(|| super::part::open(locator, archived, root, names, inbound))?
    }
    /// The connection made while the snapshot's index is read and checked (≈ 20 ms each at
    /// 100k nodes; docs/benchmarks.md, "Sixteenth session").
    fn reach_ahead(&self, locator: &str) {
        if super::conn::is_locator(locator)
            && let Ok(at) = super::conn::Locator::parse(locator)
        {
            at.connect_ahead();
        }
    }
    /// One journal per database, with or without `--archived` (`mirror::state_dir`).
    fn state_dir(&self, root: &Path) -> std::path::PathBuf {
        super::mirror::state_dir(root)
    }
    fn files_token(&self, root: &Path) -> Option<u64> {
        super::mirror::generation(root)
    }
    fn changed_since(&self, root: &Path, token: u64) -> Option<Vec<String>> {
        super::snapshot::changed_since(root, token)
    }
    fn cached_may_lag(&self, root: &Path, token: u64, ahead: usize) -> bool {
        super::snapshot::may_lag(root, token, ahead)
    }
    fn poll_source(&self, root: &Path) -> Option<Box<dyn FnMut() -> Vec<std::path::PathBuf> + Send>> {
        super::mirror::poller(root)
    }
    /// The snapshot changes only when an open, the poller or a write rewrites it, and the
    /// age-based guards count whole days, which the cache's one-day limit keeps.
    fn cacheable(&self) -> bool {
        true
    }
    /// By node kind, then maturity, then scope (opendray's own axes).
    fn group_path<'e>(&self, e: &'e Entity) -> Vec<&'e str> {
        let scope = e.tags.iter().find_map(|t| t.strip_prefix("scope:"));
        vec![label(e.kind.as_deref()), label(e.status.as_deref()), label(scope)]
    }
    fn promotion_step(&self, status: &str) -> Option<&'static str> {
        (status == "candidate").then_some("maturity candidate → fact")
    }
    fn review(&self) -> &'static dyn crate::store::review::rules::ReviewRules {
        &super::review::PgReview
    }
}
