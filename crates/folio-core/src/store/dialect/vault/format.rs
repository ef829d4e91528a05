//! Plain vaults' standing facts (see `format::Format`).
use std::path::Path;

use crate::store::dialect::spec::FormatSpec;
use crate::store::dialect::format::{Format, Sniffed};
use crate::store::dialect::{Dialect, DialectKind};
use crate::store::read::resolve::LinkRules;

/// Names this format where a store of it is made or opened by kind (tests, generators).
pub const KIND: DialectKind = DialectKind::of(&super::spec::SPEC);

pub struct VaultFormat;

impl Format for VaultFormat {
    fn spec(&self) -> &'static FormatSpec {
        &super::spec::SPEC
    }
    fn open(&self, root: &Path) -> Box<dyn Dialect> {
        Box::new(super::Vault::open(root))
    }
    /// Typed pages linked with `[[…]]` are an LLM wiki's, not OKF concepts (OKF uses markdown
    /// links only).
    fn sniff(&self, file: &Sniffed) -> bool {
        file.fields.contains_key("type") && (file.body.contains("[[") || file.raw.contains("[["))
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
}
