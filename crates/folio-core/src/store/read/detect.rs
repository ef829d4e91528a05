//! Which dialect a folder is, and where its root is.
//!
//! Markers first (a file or folder only one format uses), then a sniff of the frontmatter
//! of a sample of markdown files, then the plain vault fallback.
use std::fs;
use std::path::{Path, PathBuf};

use super::frontmatter;
use crate::store::dialect::format::Sniffed;
use crate::store::dialect::{self, DialectKind};

#[derive(Debug, Clone, PartialEq)]
pub struct Detection {
    pub kind: DialectKind,
    /// The folder the dialect treats as the store root.
    pub root: PathBuf,
    /// Human-readable: what made folio choose this dialect.
    pub reason: String,
}

/// The opendray export's root marker (folio's export format; see the README).
pub use crate::store::dialect::opendray::format::MARKER as OPENDRAY_MARKER;

/// Whether stores that hide archived entities show them (`--archived`), for this process.
static SHOW_ARCHIVED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

pub fn set_show_archived(on: bool) {
    SHOW_ARCHIVED.store(on, std::sync::atomic::Ordering::Relaxed);
}

pub fn show_archived() -> bool {
    SHOW_ARCHIVED.load(std::sync::atomic::Ordering::Relaxed)
}

/// The database named by `FOLIO_DATABASE_URL`, opened when no PATH is given.
pub fn database_from_env() -> Option<PathBuf> {
    std::env::var_os("FOLIO_DATABASE_URL").filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// A store named by a connection string instead of a folder (`--dialect` restricts which
/// format may claim it): None when no format claims `path`, else where it was read into.
pub fn locate(path: &Path, dialect: Option<DialectKind>) -> Option<Result<Detection, String>> {
    let s = path.to_str()?;
    let found = match dialect {
        Some(kind) => kind.format().locate(s, show_archived()),
        None => dialect::formats().find_map(|f| f.locate(s, show_archived())),
    };
    found.map(|r| r.map(|(kind, m)| Detection { kind, root: m.root, reason: m.reason }))
}

/// Where `locate` will read `path` into and as which dialect, known before it is read.
pub fn located_root(path: &Path, dialect: Option<DialectKind>) -> Option<(DialectKind, PathBuf)> {
    let s = path.to_str()?;
    match dialect {
        Some(kind) => kind.format().located_root(s, show_archived()),
        None => dialect::formats().find_map(|f| f.located_root(s, show_archived())),
    }
}

/// How the store named by `path` is shown before it is opened: a connection string without
/// its password, a folder as it is.
pub fn shown(path: &Path) -> String {
    let s = path.to_string_lossy();
    dialect::formats().find_map(|f| f.shown(&s)).unwrap_or_else(|| path.display().to_string())
}

/// Detect the dialect of the store at `path`.
pub fn detect(path: &Path) -> Detection {
    if let Some(d) = by_marker(path) {
        return d;
    }
    let found = sniff(path);
    // A marker file whose content is not its format's: never that format on a guess.
    let why: Vec<String> = look_alikes(path).into_iter().map(|l| l.why).collect();
    if why.is_empty() {
        return found;
    }
    let why = why.join("; ");
    let reason = if found.kind == dialect::fallback().kind() {
        format!("{why}; read as a plain markdown vault")
    } else {
        format!("{}; {why}", found.reason)
    };
    Detection { reason, ..found }
}

/// A folder holding a format's marker file that is not one of its stores.
#[derive(Debug, Clone, PartialEq)]
pub struct LookAlike {
    pub kind: DialectKind,
    /// The marker file, relative to the folder.
    pub file: String,
    pub why: String,
}

/// Every format whose marker file `path` holds without being one of its stores, in marker
/// order (`Format::look_alike`).
pub fn look_alikes(path: &Path) -> Vec<LookAlike> {
    dialect::by_marker_order()
        .filter_map(|f| f.look_alike(path).map(|(file, why)| LookAlike { kind: f.kind(), file, why }))
        .collect()
}

/// Markers that identify a store without reading its entities, tried in the registry's order.
fn by_marker(path: &Path) -> Option<Detection> {
    dialect::by_marker_order()
        .find_map(|f| f.marker(path).map(|m| Detection { kind: f.kind(), root: m.root, reason: m.reason }))
}

/// Frontmatter sniffing over a sample of markdown files. A format wins when more than half of
/// the sampled files carry its marks; files without frontmatter count against every format.
fn sniff(path: &Path) -> Detection {
    let kinds: Vec<DialectKind> = dialect::formats().map(|f| f.kind()).collect();
    let mut counts = vec![0usize; kinds.len()];
    let mut sampled = 0;
    let walker = ignore::WalkBuilder::new(path).standard_filters(false).hidden(true).max_depth(Some(4)).build();
    for entry in walker.flatten() {
        if sampled >= 64 {
            break;
        }
        let p = entry.path();
        if p.extension().is_none_or(|x| x != "md") || !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok((bytes, _)) = super::fsio::read_capped(p, 64 * 1024) else { continue };
        sampled += 1;
        let text = String::from_utf8_lossy(&bytes);
        let frontmatter::Block::Closed { inner, body_start, .. } = frontmatter::locate(&text) else { continue };
        let raw = &text[inner];
        let fields = frontmatter::parse_yaml(raw).unwrap_or_default();
        let file = Sniffed { fields: &fields, raw, body: &text[body_start..] };
        if let Some(f) = dialect::by_sniff_order().find(|f| f.sniff(&file)) {
            counts[kinds.iter().position(|k| *k == f.kind()).expect("sniffed formats are registered")] += 1;
        }
    }
    // Ties go to the format listed first.
    let (best, &n) = counts.iter().enumerate().max_by_key(|&(i, n)| (*n, usize::MAX - i)).expect("formats exist");
    let format = kinds[best].format();
    if sampled > 0 && n * 2 > sampled && format.spec().detection.chosen_by_sniffing {
        let reason = format!("{n} of {sampled} sampled files have {} frontmatter", format.spec().name);
        return Detection { kind: format.kind(), root: path.to_path_buf(), reason };
    }
    let fallback = dialect::fallback();
    Detection {
        kind: fallback.kind(),
        root: path.to_path_buf(),
        reason: "no format markers; read as a plain markdown vault".into(),
    }
}

/// Several stores of one format side by side in `dir` (a folder of OKF bundles): the format's
/// name for them and their folders, when there are two or more.
pub fn stores_within(dir: &Path) -> Option<(&'static str, Vec<PathBuf>)> {
    dialect::formats().find_map(|f| {
        let found = f.stores_within(dir);
        (found.len() >= 2).then(|| (f.spec().plural, found))
    })
}

/// The root a dialect uses when named with `--dialect` on `path`.
pub fn root_for(kind: DialectKind, path: &Path) -> PathBuf {
    kind.format().root_for(path)
}

/// The nearest store at or above `start` (used when no PATH is given).
pub fn find_upward(start: &Path) -> Option<PathBuf> {
    let start = fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf());
    let mut dir = Some(start.as_path());
    while let Some(d) = dir {
        if let Some(det) = by_marker(d) {
            return Some(det.kind.format().upward_root(d));
        }
        if let Some(enclosing) = dialect::formats().find_map(|f| f.enclosing_store(d)) {
            return Some(enclosing);
        }
        dir = d.parent();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    #[test]
    fn markers() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        write(r, "proj/.evolve/entities/guideline/a.md", "---\ntype: guideline\n---\n");
        assert_eq!(detect(&r.join("proj")).kind, dialect::evolve::KIND);
        assert_eq!(detect(&r.join("proj")).root, r.join("proj/.evolve/entities"));
        write(r, "wiki/KNOWLEDGE.md", "---\nschema: knowledge.workspace/v1\n---\n");
        assert_eq!(detect(&r.join("wiki")).kind, dialect::aip10::KIND);
        write(r, "home/memory/long-term.md", "# Long-Term Memory\n\n## Preferences\n\n- None yet.\n");
        assert_eq!(detect(&r.join("home")).kind, dialect::awareness::KIND);
        write(r, "elo/knowledge/system/a.md", "x");
        let d = detect(&r.join("elo"));
        assert_eq!((d.kind, d.root), (dialect::elophanto::KIND, r.join("elo/knowledge")));
        write(r, "okf/index.md", "# Subdirectories\n\n* [t](t/index.md) - x\n");
        assert_eq!(detect(&r.join("okf")).kind, dialect::okf::KIND);
        write(r, "vault/note.md", "# hi\n");
        assert_eq!(detect(&r.join("vault")).kind, dialect::vault::KIND);
    }

    /// A marker file whose content is not its format's opens nothing as that format: the
    /// folder is a plain vault and the reason says why (a Next.js repository's notes in
    /// `KNOWLEDGE.md`; an OpenClaw workspace's `memory/long-term.md` of "CONFIRMED" lines).
    #[test]
    fn look_alike_markers_open_a_plain_vault_saying_why() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        write(r, "next/KNOWLEDGE.md", "# KNOWLEDGE.md -- Mission Control\n\n## Architecture\n\nNext.js 14.\n");
        write(r, "next/app/page.md", "# Page\n");
        let d = detect(&r.join("next"));
        assert_eq!(d.kind, dialect::vault::KIND);
        assert_eq!(
            d.reason,
            "KNOWLEDGE.md has no frontmatter declaring `schema: knowledge.workspace/v1`, so this folder is not an \
             AIP-10 wiki; read as a plain markdown vault"
        );
        write(r, "other/KNOWLEDGE.md", "---\nschema: notes/v2\n---\n");
        assert!(detect(&r.join("other")).reason.starts_with("KNOWLEDGE.md declares `schema: notes/v2`, not AIP-10's"));
        write(r, "claw/memory/long-term.md", "# 🧠 CONFIRMED LONG-TERM MEMORY\n\n- CONFIRMED: Always reply.\n");
        let d = detect(&r.join("claw"));
        assert_eq!(d.kind, dialect::vault::KIND);
        assert!(
            d.reason
                .starts_with("memory/long-term.md has list items before any section (`- CONFIRMED: Always reply.`)"),
            "{}",
            d.reason
        );
        write(
            r,
            "mixed/memory/long-term.md",
            "# Long-term Memory\n\n## Preferences\n- x\n\n## Decisions\n- 2026-05-29: y\n",
        );
        let d = detect(&r.join("mixed"));
        assert_eq!(d.kind, dialect::vault::KIND);
        assert!(
            d.reason.contains("has list items under `## Decisions`, which is not one of the framework's sections"),
            "{}",
            d.reason
        );
        // Searching upward never stops at a look-alike.
        assert_eq!(find_upward(&r.join("claw/memory")), None);
        // A broken workspace that declares its schema is still a wiki (its YAML problems are its warnings).
        write(r, "broken/KNOWLEDGE.md", "---\nschema: knowledge.workspace/v1\nname: [unclosed\n---\n");
        assert_eq!(detect(&r.join("broken")).kind, dialect::aip10::KIND);
    }

    #[test]
    fn sniffing_and_upward_search() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        write(r, "pub/guideline/a.md", "---\ntype: guideline\ntrigger: when x: y\n---\nbody\n");
        assert_eq!(detect(&r.join("pub")).kind, dialect::evolve::KIND);
        write(r, "b/x/a.md", "---\ntype: Metric\ntitle: A\n---\n");
        assert_eq!(detect(&r.join("b")).kind, dialect::okf::KIND);
        write(r, "okf/index.md", "* [t](t/index.md) - x\n");
        write(r, "okf/t/index.md", "* [a](a.md) - x\n");
        write(r, "okf/t/a.md", "---\ntype: T\n---\n");
        let root = find_upward(&r.join("okf/t")).unwrap();
        assert_eq!(root, fs::canonicalize(r.join("okf")).unwrap());
    }
}
