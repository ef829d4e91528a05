//! User configuration: `$XDG_CONFIG_HOME/folio/config.toml` (or `$FOLIO_CONFIG_DIR/config.toml`)
//! and `keymap.toml` beside it. Every problem becomes a warning shown in the status bar;
//! folio always starts, with the defaults for whatever was wrong.
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::keymap::Keymap;
use super::theme::{self, Theme};

/// `--color`: whether to use colour regardless of `NO_COLOR`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    pub fn from_name(s: &str) -> Option<ColorChoice> {
        match s {
            "auto" => Some(ColorChoice::Auto),
            "always" => Some(ColorChoice::Always),
            "never" => Some(ColorChoice::Never),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// `auto`, `dark`, `light`, `mono`, or a path to a theme file.
    pub theme: String,
    /// Mouse clicks and wheel (also toggled at runtime with `M`).
    pub mouse: bool,
    /// Overrides the theme's code-block syntax theme (a two-face name, or "none").
    pub syntax_theme: Option<String>,
    /// Bodies larger than this many KiB are previewed up to it, with a notice.
    pub preview_limit_kb: u64,
    /// Watch the store and show agent edits live.
    pub watch: bool,
    /// Open large stores from the persistent cache and check their files in the background
    /// (`false`, `--no-cache` or `FOLIO_NO_CACHE=1`: always read every file).
    pub cache: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            theme: "auto".into(),
            mouse: true,
            syntax_theme: None,
            preview_limit_kb: 512,
            watch: true,
            cache: true,
        }
    }
}

/// Everything the app needs from configuration, resolved.
#[derive(Debug, Clone)]
pub struct Settings {
    pub config: Config,
    pub theme: Theme,
    pub keymap: Keymap,
    /// Problems found in the user's files (each names the file).
    pub warnings: Vec<String>,
}

/// The directory holding `config.toml`, `keymap.toml` and user themes.
pub fn config_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("FOLIO_CONFIG_DIR") {
        return Some(PathBuf::from(dir));
    }
    use etcetera::BaseStrategy;
    etcetera::choose_base_strategy().ok().map(|s| s.config_dir().join("folio"))
}

/// Read the configuration from `dir` (no directory: the defaults).
pub fn load(dir: Option<&Path>, color: ColorChoice, no_color: bool, colorfgbg: Option<&str>) -> Settings {
    let mut warnings = Vec::new();
    let mut config = Config::default();
    let mut keymap = Keymap::defaults();
    if let Some(dir) = dir {
        let path = dir.join("config.toml");
        if let Ok(text) = std::fs::read_to_string(&path) {
            match toml::from_str::<Config>(&text) {
                Ok(c) => config = c,
                Err(e) => {
                    let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1).unwrap_or(1);
                    warnings.push(format!("{}:{line}: {}", path.display(), e.message()));
                }
            }
        }
        let kpath = dir.join("keymap.toml");
        if let Ok(text) = std::fs::read_to_string(&kpath) {
            warnings.extend(keymap.merge(&kpath.display().to_string(), &text).into_iter().map(|e| e.to_string()));
        }
    }
    let theme = pick_theme(&config, dir, color, no_color, colorfgbg, &mut warnings);
    Settings { config, theme, keymap, warnings }
}

fn pick_theme(
    config: &Config,
    dir: Option<&Path>,
    color: ColorChoice,
    no_color: bool,
    colorfgbg: Option<&str>,
    warnings: &mut Vec<String>,
) -> Theme {
    let mono = color == ColorChoice::Never || (no_color && color != ColorChoice::Always);
    let mut theme = if mono {
        Theme::builtin("mono").unwrap_or_else(Theme::dark)
    } else {
        let name = if config.theme == "auto" { theme::auto_name(colorfgbg) } else { config.theme.as_str() };
        match Theme::builtin(name) {
            Some(t) => t,
            None => {
                let path = dir.map(|d| d.join(name)).filter(|p| p.exists()).unwrap_or_else(|| PathBuf::from(name));
                match std::fs::read_to_string(&path) {
                    Ok(text) => Theme::parse(name, &path.display().to_string(), &text).unwrap_or_else(|e| {
                        warnings.push(e);
                        Theme::dark()
                    }),
                    Err(e) => {
                        warnings.push(format!("{}: theme not found ({e}); using dark", path.display()));
                        Theme::dark()
                    }
                }
            }
        }
    };
    if let Some(syntax) = &config.syntax_theme {
        if theme.colour && (syntax == "none" || crate::markdown::highlight::theme_exists(syntax)) {
            theme.syntax = syntax.clone();
        } else if theme.colour {
            warnings.push(format!("config.toml: unknown syntax_theme `{syntax}`"));
        }
    }
    theme
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_without_a_config_dir() {
        let s = load(None, ColorChoice::Auto, false, None);
        assert_eq!(s.config, Config::default());
        assert_eq!(s.theme.name, "dark");
        assert!(s.warnings.is_empty());
    }

    #[test]
    fn no_color_selects_mono_unless_forced() {
        assert_eq!(load(None, ColorChoice::Auto, true, None).theme.name, "mono");
        assert_eq!(load(None, ColorChoice::Always, true, None).theme.name, "dark");
        assert_eq!(load(None, ColorChoice::Never, false, None).theme.name, "mono");
        assert_eq!(load(None, ColorChoice::Auto, false, Some("0;15")).theme.name, "light");
    }

    #[test]
    fn bad_files_warn_and_keep_defaults() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("config.toml"), "theme = \"light\"\nmouse = \"yes\"\n").unwrap();
        std::fs::write(dir.path().join("keymap.toml"), "[[global]]\non = \"q\"\nrun = \"explode\"\n").unwrap();
        let s = load(Some(dir.path()), ColorChoice::Auto, false, None);
        assert_eq!(s.warnings.len(), 2, "{:?}", s.warnings);
        assert!(s.warnings[0].contains("config.toml:2:"), "{}", s.warnings[0]);
        assert!(s.warnings[1].contains("keymap.toml:3:") && s.warnings[1].contains("`q`"), "{}", s.warnings[1]);
        assert_eq!(s.config, Config::default());
    }

    #[test]
    fn a_good_config_is_applied() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("config.toml"), "theme = \"light\"\nmouse = false\n").unwrap();
        let s = load(Some(dir.path()), ColorChoice::Auto, false, None);
        assert!(s.warnings.is_empty());
        assert_eq!(s.theme.name, "light");
        assert!(!s.config.mouse);
    }
}
