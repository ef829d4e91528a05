//! Plain vaults' standing facts (see `format::Format`).
use std::path::Path;

use crate::store::dialect::format::{Format, OkfAlignment, Sniffed};
use crate::store::dialect::{Dialect, DialectKind};
use crate::store::read::resolve::LinkRules;

/// Names this format where a store of it is made or opened by kind (tests, generators).
pub const KIND: DialectKind = DialectKind::Vault;

pub struct VaultFormat;

impl Format for VaultFormat {
    fn kind(&self) -> DialectKind {
        KIND
    }
    fn name(&self) -> &'static str {
        "vault"
    }
    fn open(&self, root: &Path) -> Box<dyn Dialect> {
        Box::new(super::Vault::open(root))
    }
    /// Typed pages linked with `[[…]]` are an LLM wiki's, not OKF concepts (OKF uses markdown
    /// links only).
    fn sniff(&self, file: &Sniffed) -> bool {
        file.fields.contains_key("type") && (file.body.contains("[[") || file.raw.contains("[["))
    }
    /// The fallback: chosen when nothing else is, never by a majority.
    fn chosen_by_sniffing(&self) -> bool {
        false
    }
    fn cacheable(&self) -> bool {
        true
    }
    fn review(&self) -> &'static dyn crate::store::review::rules::ReviewRules {
        &super::review::VaultReview
    }
    fn link_rules(&self) -> LinkRules {
        LinkRules::OBSIDIAN
    }
    fn okf_alignment(&self) -> Option<OkfAlignment> {
        Some(OkfAlignment { entries_named_by_stem: false })
    }
}
