//! OKF's standing facts (see `format::Format`).
use std::fs;
use std::path::{Path, PathBuf};

use crate::store::dialect::format::{Format, Marker, Sniffed};
use crate::store::dialect::{Dialect, DialectKind};
use crate::store::model::entity::{LinkSyntax, rule};
use crate::store::read::frontmatter;

/// Names this format where a store of it is made or opened by kind (tests, generators).
pub const KIND: DialectKind = DialectKind::Okf;

pub struct OkfFormat;

impl Format for OkfFormat {
    fn kind(&self) -> DialectKind {
        KIND
    }
    fn name(&self) -> &'static str {
        "okf"
    }
    fn open(&self, _root: &Path) -> Box<dyn Dialect> {
        Box::new(super::Okf)
    }
    fn marker(&self, path: &Path) -> Option<Marker> {
        is_root_index(&path.join("index.md")).then(|| Marker::new(path, "a catalog index.md at the root"))
    }
    /// A typed page (the vault is asked first and claims those linked with wikilinks).
    fn sniff(&self, file: &Sniffed) -> bool {
        file.fields.contains_key("type")
    }
    /// Every level may hold an `index.md`: the highest consecutive folder with a catalog is the
    /// root (stopping at a project that holds an evolve store).
    fn upward_root(&self, found: &Path) -> PathBuf {
        let mut top = found;
        while let Some(p) = top.parent() {
            if p.join("index.md").is_file() && !p.join(".evolve").exists() {
                top = p;
            } else {
                break;
            }
        }
        top.to_path_buf()
    }
    fn cacheable(&self) -> bool {
        true
    }
    fn reserved_names(&self) -> &'static [&'static str] {
        &["index.md", "log.md"]
    }
    /// OKF bundles link with markdown links only.
    fn forbidden_link(&self, syntax: LinkSyntax, target: &str, _path: Option<&str>) -> Option<(&'static str, String)> {
        (syntax == LinkSyntax::Wiki)
            .then(|| (rule::WIKILINK_SYNTAX, format!("`[[{target}]]`: OKF bundles use markdown links only")))
    }
    fn field_labels(&self) -> (&'static str, &'static str) {
        ("type", "status")
    }
    fn promotion_step(&self, status: &str) -> Option<&'static str> {
        (status == "draft").then_some("status draft → stable")
    }
    fn review(&self) -> &'static dyn crate::store::review::rules::ReviewRules {
        &super::review::OkfReview
    }
    fn log_path(&self, root: &Path) -> PathBuf {
        root.join("log.md")
    }
    fn append_event(
        &self,
        old: &str,
        event: &crate::store::write::audit::AuditEvent,
        at: time::OffsetDateTime,
    ) -> String {
        super::log_writer::append(old, event, at)
    }
}

/// An OKF root `index.md`: a catalog (no frontmatter, or only `okf_version`) with `* [..](..)`
/// entries or `#` sections.
fn is_root_index(p: &Path) -> bool {
    let Ok(text) = fs::read_to_string(p) else { return false };
    let fm = frontmatter::locate(&text);
    if let frontmatter::Block::Closed { inner, .. } = &fm {
        let fields = frontmatter::parse_yaml(&text[inner.clone()]).unwrap_or_default();
        if fields.keys().any(|k| k != "okf_version") {
            return false;
        }
    }
    text.lines().any(|l| {
        let l = l.trim_start();
        (l.starts_with("* [") || l.starts_with("- [")) && l.contains("](")
    })
}
