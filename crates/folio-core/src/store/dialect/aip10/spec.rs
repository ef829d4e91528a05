//! AIP-10 wikis: the `KNOWLEDGE.md` workspace, pages by slug, the generated `_index.md` and `_log.md` (docs/formats/aip10.md).
use crate::store::lint::rules::r;
use crate::store::model::entity::Severity::{Error, Warn};
use crate::store::dialect::spec::{Detection, FormatSpec};

/// The generated catalog, at the root.
pub const CATALOG: &str = "_index.md";
/// The generated log, at the root.
pub const LOG: &str = "_log.md";
/// The doctype `KNOWLEDGE.md` declares (`schema:` in its frontmatter) to make a folder a wiki.
pub const WORKSPACE_SCHEMA: &str = "knowledge.workspace/v1";
/// `schema:` values that are AIP-10's (its doctypes `knowledge.workspace/v1`, `knowledge/v1` as
/// the spec's text writes it, and the spec's own name `agentknowledge/v1`).
pub const SCHEMA_PREFIXES: &[&str] = &["knowledge", "agentknowledge/"];

/// A view's `extends` chain loops back on itself.
pub const EXTENDS_CYCLE: &str = "extends-cycle";
/// A view extends a workspace that does not exist.
pub const EXTENDS_MISSING: &str = "extends-missing";
/// A view's `extends` chain is deeper than the spec allows.
pub const EXTENDS_DEPTH: &str = "extends-depth";
/// A `sources/` file changed after `_manifest.json` recorded its hash.
pub const SOURCE_MODIFIED: &str = "source-modified";
/// A page links into `sources/` instead of citing by id.
pub const LINK_INTO_SOURCES: &str = "link-into-sources";

pub const SPEC: FormatSpec = FormatSpec {
    name: "aip10",
    markers: &["`KNOWLEDGE.md` with `schema: knowledge.workspace/v1`"],
    detection: Detection::ranked(Some(1), Some(0)),
    catalog_files: &[CATALOG],
    log_files: &[LOG],
    reserved_names: &[CATALOG, LOG],
    rules: &[
        r(EXTENDS_CYCLE, Warn, "An AIP-10 view's `extends` chain loops back on itself.", false),
        r(EXTENDS_MISSING, Warn, "An AIP-10 view `extends` a workspace that does not exist.", false),
        r(EXTENDS_DEPTH, Warn, "An AIP-10 view's `extends` chain is deeper than the spec's limit of 8.", false),
        r(
            SOURCE_MODIFIED,
            Error,
            "An AIP-10 `sources/` file whose hash no longer matches `_manifest.json`: sources are immutable.",
            false,
        ),
        r(LINK_INTO_SOURCES, Warn, "An inline link into AIP-10 `sources/`; pages cite sources by id in `sources:`.", false),
    ],
    ..FormatSpec::FOLDER
};
