//! A format's standing facts as data: one `FormatSpec` per format, in its own folder
//! (`<format>/spec.rs`), read by generic code through `kind.spec()`. What a format *does*
//! (parse a file, plan its catalogs, write a verdict) stays in its `Format`, `Dialect` and
//! `ReviewRules` implementations; what it *is* lives here, the way helix keeps a language's
//! facts in `languages.toml` (docs/ARCHITECTURE.md, "A format is a folder").
use crate::store::lint::rules::Rule;

/// Everything generic code may know about a format without asking it to do anything.
#[derive(Debug)]
pub struct FormatSpec {
    /// The `--dialect` value and the JSON `dialect` field.
    pub name: &'static str,
    /// What several stores of this format are called ("OKF bundles").
    pub plural: &'static str,
    /// What marks a store of this format, for people ("no store found" lists them all).
    pub markers: &'static [&'static str],
    /// Where the format stands in detection.
    pub detection: Detection,
    /// Whether a store is a folder of files (false: a database, reached through a locator).
    pub store_is_folder: bool,
    /// File names the format writes as catalogs of a folder's entities.
    pub catalog_files: &'static [&'static str],
    /// File names of the format's own event log.
    pub log_files: &'static [&'static str],
    /// File names the format reserves for its catalogs and logs (anywhere in the store): a
    /// concept written under one of them would be lost to regeneration.
    pub reserved_names: &'static [&'static str],
    /// A link to a folder lands on the first of these present in it.
    pub folder_pages: &'static [&'static str],
    /// Pages that are the store's entry points (its hub): nothing needs to link to them.
    pub hub_pages: &'static [&'static str],
    /// Statuses that take an entity out of the active set: never queued for review.
    pub inactive_statuses: &'static [&'static str],
    /// Key paths naming who wrote an entity, the first present wins.
    pub author_fields: &'static [&'static [&'static str]],
    /// Key paths naming the agent run that wrote it (a trajectory path keeps its file name).
    pub session_fields: &'static [&'static [&'static str]],
    /// What the preview calls an entity's kind and status fields.
    pub field_labels: (&'static str, &'static str),
    /// Where folio keeps its state for a store, relative to the root, when the format has no
    /// place of its own (a format with one says so in `Format::state_dir`).
    pub state_folder: &'static str,
    /// The migrations `folio migrate` offers from this format.
    pub migrations: &'static [Migration],
    /// Lint rules only this format has, with their descriptions (`folio lint --explain`).
    pub rules: &'static [Rule],
}

/// A format's place in detection.
#[derive(Debug, Clone, Copy)]
pub struct Detection {
    /// Rank among formats whose marker is looked for (lowest first; the first found wins).
    pub marker_rank: Option<u8>,
    /// Rank among formats asked whether a sampled file is theirs (lowest first).
    pub sniff_rank: Option<u8>,
    /// Whether a majority of sniffed files may choose it (false for the fallback, whose claims
    /// only keep files from counting for another format).
    pub chosen_by_sniffing: bool,
    /// The format of a folder with no marks at all (exactly one format is).
    pub fallback: bool,
}

impl Detection {
    /// Found neither by a marker nor by sniffing: named with `--dialect` or by a locator.
    pub const UNRANKED: Detection =
        Detection { marker_rank: None, sniff_rank: None, chosen_by_sniffing: true, fallback: false };

    /// Found by its marker at `marker` and by sniffing at `sniff` (lowest first).
    pub const fn ranked(marker: Option<u8>, sniff: Option<u8>) -> Detection {
        Detection { marker_rank: marker, sniff_rank: sniff, ..Detection::UNRANKED }
    }
}

/// A migration a format offers: to which format, and how it aligns catalog entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Migration {
    /// The target format's name.
    pub to: &'static str,
    /// Catalog entries are named by file stem (evolve's slugs) rather than by title.
    pub entries_named_by_stem: bool,
}

impl FormatSpec {
    /// A folder format's defaults: each format's spec names what differs from them
    /// (`..FormatSpec::FOLDER`), and names itself.
    pub const FOLDER: FormatSpec = FormatSpec {
        name: "",
        plural: "stores",
        markers: &[],
        detection: Detection::UNRANKED,
        store_is_folder: true,
        catalog_files: &[],
        log_files: &[],
        reserved_names: &[],
        folder_pages: INDEX_PAGES,
        hub_pages: ROOT_INDEX_HUB,
        inactive_statuses: INACTIVE_STATUSES,
        author_fields: AUTHOR_FIELDS,
        session_fields: SESSION_FIELDS,
        field_labels: ("kind", "status"),
        state_folder: FOLIO_STATE,
        migrations: &[],
        rules: &[],
    };

    /// The migration to `target`, if this format offers one.
    pub fn migration_to(&self, target: &str) -> Option<Migration> {
        self.migrations.iter().find(|m| m.to == target).copied()
    }

    /// Whether `name` (a file name) is one of the format's log files.
    pub fn is_log_file(&self, name: &str) -> bool {
        self.log_files.contains(&name)
    }
}

/// Folder pages as markdown sites name them: a link to a folder opens its `index.md` or
/// `_index.md`.
pub const INDEX_PAGES: &[&str] = &["index.md", "_index.md"];

/// A root `index.md` is a wiki's hub page where it is a page and not a generated catalog.
pub const ROOT_INDEX_HUB: &[&str] = &["index.md"];

/// Statuses the agents' formats use for "no longer active", shared by formats whose own
/// vocabulary is open (a vault's notes may carry any of them).
pub const INACTIVE_STATUSES: &[&str] = &["deprecated", "superseded", "archived", "pruned", "inactive", "vetoed"];

/// Author fields as agents write them in formats with an open vocabulary, in the order folio
/// trusts them: OKF `generated.by`, opendray `provenance.source`, `author`, `agent`,
/// `generated_by`, evolve's `source` then `owner`.
pub const AUTHOR_FIELDS: &[&[&str]] = &[
    &["generated", "by"],
    &["provenance", "source"],
    &["author"],
    &["agent"],
    &["generated_by"],
    &["source"],
    &["owner"],
];

/// Session fields likewise: evolve's `trajectory`, opendray's `provenance.session_id`, OKF's
/// `generated.session`/`generated.run`, and plain `session_id`/`session`.
pub const SESSION_FIELDS: &[&[&str]] = &[
    &["trajectory"],
    &["provenance", "session_id"],
    &["provenance", "session"],
    &["generated", "session"],
    &["generated", "run"],
    &["session_id"],
    &["session"],
];

/// folio's own state folder inside a store root.
pub const FOLIO_STATE: &str = ".folio";
