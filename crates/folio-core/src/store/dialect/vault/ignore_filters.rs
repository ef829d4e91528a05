//! Obsidian's "Excluded files" (`userIgnoreFilters` in `.obsidian/app.json`): folders of
//! templates and scratch notes the vault keeps out of search, graph and link suggestions.
//! folio reads the files there as plain files, not notes: links into them resolve, their own
//! template placeholders (`[[{{title}}]]`) are not reported.
use std::path::Path;

use regex::Regex;

/// The vault's filters, as paths relative to the store root.
#[derive(Default)]
pub struct IgnoreFilters {
    /// Path prefixes (`templates/`, `_scratch`), relative to the vault root.
    prefixes: Vec<String>,
    /// `/…/` entries: regular expressions over the path relative to the vault root.
    patterns: Vec<Regex>,
    /// Where the store root sits below the vault root (`wiki/`; empty when they are one).
    offset: String,
}

impl IgnoreFilters {
    /// The filters of the vault at `vault` (the folder holding `.obsidian/`), for a store
    /// opened `below` it (`wiki/`, or empty). Unreadable or malformed settings are no filters
    /// (Obsidian ignores them too).
    pub fn of(vault: &Path, below: &str) -> IgnoreFilters {
        match std::fs::read_to_string(vault.join(".obsidian/app.json")) {
            Ok(text) => IgnoreFilters::parse(&text, below.to_string()),
            Err(_) => IgnoreFilters::default(),
        }
    }

    fn parse(app_json: &str, offset: String) -> IgnoreFilters {
        let mut filters = IgnoreFilters { offset, ..Default::default() };
        let Ok(settings) = serde_json::from_str::<serde_json::Value>(app_json) else { return filters };
        let Some(list) = settings.get("userIgnoreFilters").and_then(|v| v.as_array()) else { return filters };
        for entry in list.iter().filter_map(|v| v.as_str()).map(str::trim).filter(|s| !s.is_empty()) {
            match entry.strip_prefix('/').and_then(|e| e.strip_suffix('/')) {
                Some(pattern) if !pattern.is_empty() => filters.patterns.extend(Regex::new(pattern).ok()),
                _ => filters.prefixes.push(entry.trim_start_matches('/').to_string()),
            }
        }
        filters
    }

    /// Whether the file at `rel` (relative to the store root) is excluded.
    pub fn excludes(&self, rel: &str) -> bool {
        if self.prefixes.is_empty() && self.patterns.is_empty() {
            return false;
        }
        let in_vault = format!("{}{rel}", self.offset);
        self.prefixes.iter().any(|p| in_vault.starts_with(p.as_str()))
            || self.patterns.iter().any(|r| r.is_match(&in_vault))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_and_patterns_from_the_vault_root() {
        let app = r#"{"userIgnoreFilters": ["_templates/", "scratch", "/\\.excalidraw\\.md$/", "/(/"], "other": 1}"#;
        let f = IgnoreFilters::parse(app, String::new());
        assert!(f.excludes("_templates/page.md"));
        assert!(f.excludes("scratch.md") && f.excludes("scratch/a.md"), "a prefix, as Obsidian matches");
        assert!(f.excludes("drawings/x.excalidraw.md"));
        assert!(!f.excludes("notes/_templates/page.md"));
        assert!(!f.excludes("notes/a.md"), "an invalid pattern excludes nothing");
        let below = IgnoreFilters::parse(app, "wiki/".into());
        assert!(!below.excludes("_templates/page.md"), "relative to the vault root, not the store's");
    }

    #[test]
    fn found_above_the_store_root_and_malformed_settings_ignored() {
        let vault = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(vault.path().join(".obsidian")).unwrap();
        std::fs::create_dir_all(vault.path().join("wiki/templates")).unwrap();
        std::fs::write(vault.path().join(".obsidian/app.json"), r#"{"userIgnoreFilters":["wiki/templates/"]}"#)
            .unwrap();
        let (found, below) = super::super::vault_root(&vault.path().join("wiki")).unwrap();
        assert_eq!((found, below.as_str()), (vault.path().canonicalize().unwrap(), "wiki/"));
        assert!(IgnoreFilters::of(vault.path(), "wiki/").excludes("templates/t.md"));
        assert!(IgnoreFilters::of(vault.path(), "").excludes("wiki/templates/t.md"));
        std::fs::write(vault.path().join(".obsidian/app.json"), "{not json").unwrap();
        assert!(!IgnoreFilters::of(vault.path(), "").excludes("wiki/templates/t.md"));
    }
}
