//! Which dialect a folder is, and where its root is.
//!
//! Markers first (a file or folder only one format uses), then a sniff of the frontmatter
//! of a sample of markdown files, then the plain vault fallback.
use std::fs;
use std::path::{Path, PathBuf};

use super::dialect::DialectKind;
use super::frontmatter;

#[derive(Debug, Clone, PartialEq)]
pub struct Detection {
    pub kind: DialectKind,
    /// The folder the dialect treats as the store root.
    pub root: PathBuf,
    /// Human-readable: what made folio choose this dialect.
    pub reason: String,
}

/// The opendray export's root marker (folio's export format; see the README).
pub const OPENDRAY_MARKER: &str = "opendray-export.json";

fn found(kind: DialectKind, root: &Path, reason: impl Into<String>) -> Detection {
    Detection { kind, root: root.to_path_buf(), reason: reason.into() }
}

/// Detect the dialect of the store at `path`.
pub fn detect(path: &Path) -> Detection {
    if let Some(d) = by_marker(path) {
        return d;
    }
    sniff(path)
}

/// Markers that identify a store without reading its entities.
fn by_marker(path: &Path) -> Option<Detection> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let parent_name = path.parent().and_then(|p| p.file_name()).and_then(|n| n.to_str()).unwrap_or("");
    if path.join(".evolve/entities").is_dir() {
        return Some(found(DialectKind::Evolve, &path.join(".evolve/entities"), ".evolve/entities/ found"));
    }
    if name == ".evolve" && path.join("entities").is_dir() {
        return Some(found(DialectKind::Evolve, &path.join("entities"), "entities/ inside .evolve"));
    }
    if name == "entities" && parent_name == ".evolve" {
        return Some(found(DialectKind::Evolve, path, "an .evolve/entities folder"));
    }
    if path.join("KNOWLEDGE.md").is_file() {
        return Some(found(DialectKind::Aip10, path, "KNOWLEDGE.md found"));
    }
    if path.join("memory/long-term.md").is_file() {
        return Some(found(DialectKind::Awareness, path, "memory/long-term.md found"));
    }
    if path.join("knowledge/system").is_dir() {
        return Some(found(DialectKind::Elophanto, &path.join("knowledge"), "knowledge/system/ found"));
    }
    if name == "knowledge" && path.join("system").is_dir() {
        return Some(found(DialectKind::Elophanto, path, "a knowledge/ folder with system/"));
    }
    if path.join(OPENDRAY_MARKER).is_file() {
        return Some(found(DialectKind::Opendray, path, format!("{OPENDRAY_MARKER} found")));
    }
    if is_okf_root_index(&path.join("index.md")) {
        return Some(found(DialectKind::Okf, path, "a catalog index.md at the root"));
    }
    None
}

/// An OKF root `index.md`: a catalog (no frontmatter, or only `okf_version`) with `* [..](..)`
/// entries or `#` sections.
fn is_okf_root_index(p: &Path) -> bool {
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

/// Frontmatter sniffing over a sample of markdown files. A format wins when more than half of
/// the sampled files carry its marks; files without frontmatter count against every format.
fn sniff(path: &Path) -> Detection {
    // okf, evolve, aip10, elophanto, opendray, and typed pages with wikilinks (an LLM wiki)
    let mut counts = [0usize; 6];
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
        let has = |k: &str| fields.contains_key(k) || raw.lines().any(|l| l.starts_with(&format!("{k}:")));
        let s = |k: &str| frontmatter::get_str(&fields, k).unwrap_or_default();
        if s("schema").starts_with("knowledge") {
            counts[2] += 1;
        } else if has("trigger") && has("type") {
            counts[1] += 1;
        } else if ["entity", "fact", "playbook", "skill"].contains(&s("kind").as_str()) && has("id") {
            counts[4] += 1;
        } else if ["system", "user", "learned", "plugin"].contains(&s("scope").as_str()) {
            counts[3] += 1;
        } else if fields.contains_key("type") {
            // OKF uses markdown links only; typed pages linked with [[…]] are an LLM wiki.
            let body = &text[body_start..];
            if body.contains("[[") || raw.contains("[[") { counts[5] += 1 } else { counts[0] += 1 }
        }
    }
    let kinds = [
        DialectKind::Okf,
        DialectKind::Evolve,
        DialectKind::Aip10,
        DialectKind::Elophanto,
        DialectKind::Opendray,
        DialectKind::Vault,
    ];
    let (best, &n) = counts.iter().enumerate().max_by_key(|&(i, n)| (*n, usize::MAX - i)).unwrap();
    if sampled > 0 && n * 2 > sampled && kinds[best] != DialectKind::Vault {
        let reason = format!("{n} of {sampled} sampled files have {} frontmatter", kinds[best]);
        return found(kinds[best], path, reason);
    }
    found(DialectKind::Vault, path, "no format markers; read as a plain markdown vault")
}

/// The root a dialect uses when named with `--dialect` on `path`.
pub fn root_for(kind: DialectKind, path: &Path) -> PathBuf {
    match kind {
        DialectKind::Evolve if path.join(".evolve/entities").is_dir() => path.join(".evolve/entities"),
        DialectKind::Evolve if path.join("entities").is_dir() && path.ends_with(".evolve") => path.join("entities"),
        DialectKind::Elophanto if path.join("knowledge/system").is_dir() => path.join("knowledge"),
        _ => path.to_path_buf(),
    }
}

/// The nearest store at or above `start` (used when no PATH is given). For OKF, where every
/// level may hold an `index.md`, the highest consecutive folder with a catalog is the root.
pub fn find_upward(start: &Path) -> Option<PathBuf> {
    let start = fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf());
    let mut dir = Some(start.as_path());
    while let Some(d) = dir {
        if let Some(det) = by_marker(d) {
            if det.kind == DialectKind::Okf {
                let mut top = d;
                while let Some(p) = top.parent() {
                    if p.join("index.md").is_file() && !p.join(".evolve").exists() {
                        top = p;
                    } else {
                        break;
                    }
                }
                return Some(top.to_path_buf());
            }
            return Some(d.to_path_buf());
        }
        // Inside an evolve entities tree: the project folder holding `.evolve`.
        if d.file_name().is_some_and(|n| n == ".evolve") {
            return d.parent().map(Path::to_path_buf);
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
        assert_eq!(detect(&r.join("proj")).kind, DialectKind::Evolve);
        assert_eq!(detect(&r.join("proj")).root, r.join("proj/.evolve/entities"));
        write(r, "wiki/KNOWLEDGE.md", "---\nschema: knowledge.workspace/v1\n---\n");
        assert_eq!(detect(&r.join("wiki")).kind, DialectKind::Aip10);
        write(r, "home/memory/long-term.md", "# Long-Term Memory\n");
        assert_eq!(detect(&r.join("home")).kind, DialectKind::Awareness);
        write(r, "elo/knowledge/system/a.md", "x");
        let d = detect(&r.join("elo"));
        assert_eq!((d.kind, d.root), (DialectKind::Elophanto, r.join("elo/knowledge")));
        write(r, "okf/index.md", "# Subdirectories\n\n* [t](t/index.md) - x\n");
        assert_eq!(detect(&r.join("okf")).kind, DialectKind::Okf);
        write(r, "vault/note.md", "# hi\n");
        assert_eq!(detect(&r.join("vault")).kind, DialectKind::Vault);
    }

    #[test]
    fn sniffing_and_upward_search() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        write(r, "pub/guideline/a.md", "---\ntype: guideline\ntrigger: when x: y\n---\nbody\n");
        assert_eq!(detect(&r.join("pub")).kind, DialectKind::Evolve);
        write(r, "b/x/a.md", "---\ntype: Metric\ntitle: A\n---\n");
        assert_eq!(detect(&r.join("b")).kind, DialectKind::Okf);
        write(r, "okf/index.md", "* [t](t/index.md) - x\n");
        write(r, "okf/t/index.md", "* [a](a.md) - x\n");
        write(r, "okf/t/a.md", "---\ntype: T\n---\n");
        let root = find_upward(&r.join("okf/t")).unwrap();
        assert_eq!(root, fs::canonicalize(r.join("okf")).unwrap());
    }
}
