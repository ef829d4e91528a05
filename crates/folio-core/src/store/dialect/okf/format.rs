//! OKF's standing facts (see `format::Format`).
use std::fs;
use std::path::{Path, PathBuf};

use crate::store::dialect::spec::FormatSpec;
use crate::store::dialect::format::{Format, Marker, Sniffed};
use crate::store::dialect::{Dialect, DialectKind};
use crate::store::model::entity::{LinkSyntax, rule};
use crate::store::read::frontmatter;

/// Names this format where a store of it is made or opened by kind (tests, generators).
pub const KIND: DialectKind = DialectKind::of(&super::spec::SPEC);

pub struct OkfFormat;

impl Format for OkfFormat {
    fn spec(&self) -> &'static FormatSpec {
        &super::spec::SPEC
    }
    /// Opened at a folder inside a bundle (`acme_retail/metrics`): links resolve from the
    /// bundle's root, and `stats` says so.
    fn open(&self, root: &Path) -> Box<dyn Dialect> {
        let canonical = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        let top = self.upward_root(&canonical);
        let enclosing = (top != canonical && is_root_index(&top.join("index.md")))
            .then(|| {
                let below = crate::store::model::relpath::from_path(canonical.strip_prefix(&top).ok()?)?;
                Some(crate::store::dialect::Enclosing {
                    what: "OKF bundle",
                    root: top.clone(),
                    below: format!("{below}/"),
                })
            })
            .flatten();
        Box::new(super::Okf { enclosing })
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
    /// knowledge-catalog's `okf/bundles/`: sub-folders that are bundle roots, in a folder
    /// that is not one (no catalog of its own).
    fn stores_within(&self, dir: &Path) -> Vec<PathBuf> {
        if dir.join("index.md").exists() {
            return Vec::new();
        }
        let Ok(entries) = fs::read_dir(dir) else { return Vec::new() };
        let mut bundles: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .map(|e| e.path())
            .filter(|p| is_root_index(&p.join("index.md")))
            .collect();
        bundles.sort();
        bundles
    }
    fn cacheable(&self) -> bool {
        true
    }
    /// OKF bundles link with markdown links only.
    fn forbidden_link(&self, syntax: LinkSyntax, target: &str, _path: Option<&str>) -> Option<(&'static str, String)> {
        (syntax == LinkSyntax::Wiki)
            .then(|| (rule::WIKILINK_SYNTAX, format!("`[[{target}]]`: OKF bundles use markdown links only")))
    }
    /// `log.md`'s structure (§9): no frontmatter, `## YYYY-MM-DD` groups newest first.
    fn reserved_file_problems(&self, rel: &str, text: &str) -> Vec<(u32, String)> {
        super::checks::reserved_file(rel, text)
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
