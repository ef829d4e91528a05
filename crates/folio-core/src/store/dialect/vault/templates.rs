//! Template folders: notes written to be copied, whose `[[{{title}}]]` placeholders are filled
//! in when a note is made from them. Such a placeholder is no link (Obsidian's Templates and
//! Templater plugins replace it), so it is never a broken one. A template folder is the one
//! `.obsidian/templates.json` names (the core Templates plugin), Templater's
//! `templates_folder`, or any folder named `templates` or `_templates`.

use std::path::Path;

/// The vault's template folders, relative to the store root.
#[derive(Default)]
pub struct TemplateFolders {
    /// Configured folders, relative to the vault root (`_templates`, `meta/templates`).
    configured: Vec<String>,
    /// Where the store root sits below the vault root (`wiki/`; empty when they are one).
    offset: String,
}

impl TemplateFolders {
    /// The folders the vault at `vault` configures, for a store opened `below` it.
    pub fn of(vault: Option<&Path>, below: &str) -> TemplateFolders {
        let mut configured = Vec::new();
        if let Some(vault) = vault {
            for (file, key) in [
                (".obsidian/templates.json", "folder"),
                (".obsidian/plugins/templater-obsidian/data.json", "templates_folder"),
            ] {
                let Ok(text) = std::fs::read_to_string(vault.join(file)) else { continue };
                let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else { continue };
                if let Some(folder) = v.get(key).and_then(|f| f.as_str()).map(|f| f.trim().trim_matches('/'))
                    && !folder.is_empty()
                {
                    configured.push(folder.to_string());
                }
            }
        }
        TemplateFolders { configured, offset: below.to_string() }
    }

    /// Whether the note at `rel` (relative to the store root) lies in a template folder.
    pub fn holds(&self, rel: &str) -> bool {
        // Joined only below the vault's root: asked of every note a load parses.
        let in_vault: std::borrow::Cow<'_, str> =
            if self.offset.is_empty() { rel.into() } else { format!("{}{rel}", self.offset).into() };
        let folder = crate::store::model::relpath::parent(&in_vault);
        let named = folder.split('/').any(|d| d.eq_ignore_ascii_case("templates") || d.eq_ignore_ascii_case("_templates"));
        named
            || self.configured.iter().any(|c| folder.strip_prefix(c.as_str()).is_some_and(|r| r.is_empty() || r.starts_with('/')))
    }
}

/// Whether a wikilink target is a template placeholder (`{{title}}`, `{{date:YYYY}}`).
pub fn is_placeholder(target: &str) -> bool {
    target.find("{{").is_some_and(|open| target[open..].contains("}}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_in_template_folders() {
        let vault = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(vault.path().join(".obsidian")).unwrap();
        std::fs::write(vault.path().join(".obsidian/templates.json"), r#"{"folder": "meta/blueprints"}"#).unwrap();
        let t = TemplateFolders::of(Some(vault.path()), "");
        assert!(t.holds("meta/blueprints/page.md") && t.holds("meta/blueprints/sub/page.md"));
        assert!(t.holds("skills/wiki-mode/templates/para/project-template.md"));
        assert!(t.holds("_Templates/x.md"), "by its name, in any case");
        assert!(!t.holds("meta/page.md") && !t.holds("templates.md"));
        assert!(!t.holds("meta/blueprints2/page.md") && !t.holds("meta/blueprint/page.md"), "the folder, not a prefix");
        let below = TemplateFolders::of(Some(vault.path()), "meta/");
        assert!(below.holds("blueprints/page.md"), "relative to the vault root");
        assert!(!below.holds("blueprintsx/page.md") && !below.holds("page.md"));
        assert!(is_placeholder("{{note}}") && is_placeholder("Daily {{date:YYYY}}"));
        assert!(!is_placeholder("{{open") && !is_placeholder("Note"));
    }
}
