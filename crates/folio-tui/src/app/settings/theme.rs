//! Themes: a TOML palette of semantic roles (text, selection, link_broken, hostile…) plus the
//! syntax theme for code blocks. dark, light and mono are embedded; a user theme is a file.
use std::collections::HashMap;

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

use crate::markdown::highlight;

pub const BUILTIN: [(&str, &str); 3] = [
    ("dark", include_str!("../../../../../themes/dark.toml")),
    ("light", include_str!("../../../../../themes/light.toml")),
    ("mono", include_str!("../../../../../themes/mono.toml")),
];

/// Every role a theme defines; a theme missing one is an error naming it.
pub const ROLES: [&str; 23] = [
    "text",
    "muted",
    "accent",
    "border",
    "border_focus",
    "selection",
    "heading",
    "code",
    "code_frame",
    "link",
    "link_broken",
    "link_selected",
    "quote",
    "marker",
    "task_done",
    "tag",
    "warn",
    "error",
    "hostile",
    "pending",
    "status",
    "status_key",
    "title",
];

#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    pub name: String,
    /// Two-face theme name for code blocks, or "none" for plain code.
    pub syntax: String,
    /// Whether syntax colours may be used (false for mono).
    pub colour: bool,
    roles: HashMap<&'static str, Style>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    syntax: String,
    roles: HashMap<String, RoleSpec>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RoleSpec {
    Colour(String),
    Full {
        #[serde(default)]
        fg: Option<String>,
        #[serde(default)]
        bg: Option<String>,
        #[serde(default)]
        mods: Vec<String>,
    },
}

fn colour(s: &str) -> Result<Color, String> {
    if s == "default" {
        return Ok(Color::Reset);
    }
    s.parse::<Color>().map_err(|_| format!("unknown colour `{s}`"))
}

fn modifier(s: &str) -> Result<Modifier, String> {
    Ok(match s {
        "bold" => Modifier::BOLD,
        "dim" => Modifier::DIM,
        "italic" => Modifier::ITALIC,
        "underlined" => Modifier::UNDERLINED,
        "reversed" => Modifier::REVERSED,
        "crossed_out" => Modifier::CROSSED_OUT,
        other => return Err(format!("unknown modifier `{other}`")),
    })
}

impl Theme {
    /// Parse a theme file; `file` names it in errors.
    pub fn parse(name: &str, file: &str, text: &str) -> Result<Theme, String> {
        let parsed: ThemeFile = toml::from_str(text).map_err(|e| format!("{file}: {}", e.message()))?;
        let mut roles = HashMap::new();
        for role in ROLES {
            let spec = match parsed.roles.get(role) {
                Some(s) => s,
                // `title` defaults to the accent so older theme files keep working.
                None if role == "title" => match parsed.roles.get("accent") {
                    Some(s) => s,
                    None => return Err(format!("{file}: role `{role}` is missing")),
                },
                None => return Err(format!("{file}: role `{role}` is missing")),
            };
            let style = match spec {
                RoleSpec::Colour(c) => Style::new().fg(colour(c).map_err(|e| format!("{file}: {role}: {e}"))?),
                RoleSpec::Full { fg, bg, mods } => {
                    let mut s = Style::new();
                    if let Some(fg) = fg {
                        s = s.fg(colour(fg).map_err(|e| format!("{file}: {role}: {e}"))?);
                    }
                    if let Some(bg) = bg {
                        s = s.bg(colour(bg).map_err(|e| format!("{file}: {role}: {e}"))?);
                    }
                    for m in mods {
                        s = s.add_modifier(modifier(m).map_err(|e| format!("{file}: {role}: {e}"))?);
                    }
                    s
                }
            };
            roles.insert(role, style);
        }
        if let Some(unknown) = parsed.roles.keys().find(|k| !ROLES.contains(&k.as_str())) {
            return Err(format!("{file}: unknown role `{unknown}`"));
        }
        if parsed.syntax != "none" && !highlight::theme_exists(&parsed.syntax) {
            return Err(format!("{file}: unknown syntax theme `{}`", parsed.syntax));
        }
        Ok(Theme { name: name.to_string(), colour: parsed.syntax != "none", syntax: parsed.syntax, roles })
    }

    /// One of the embedded themes (`dark`, `light`, `mono`).
    pub fn builtin(name: &str) -> Option<Theme> {
        let (_, text) = BUILTIN.iter().find(|(n, _)| *n == name)?;
        Theme::parse(name, &format!("themes/{name}.toml"), text).ok()
    }

    pub fn dark() -> Theme {
        Theme::builtin("dark").expect("the embedded dark theme parses")
    }

    /// The style of a role (plain when the name is not a role, which tests guard against).
    pub fn style(&self, role: &str) -> Style {
        self.roles.get(role).copied().unwrap_or_default()
    }

    /// Colour of a highlighted code token (the terminal default when the theme is mono).
    pub fn syntax_style(&self, (r, g, b): (u8, u8, u8)) -> Style {
        if self.colour { Style::new().fg(Color::Rgb(r, g, b)) } else { Style::new() }
    }
}

/// Which theme `theme = "auto"` means: light when `COLORFGBG` says the background is light.
pub fn auto_name(colorfgbg: Option<&str>) -> &'static str {
    let bg = colorfgbg.and_then(|v| v.rsplit(';').next()).and_then(|b| b.parse::<u8>().ok());
    match bg {
        Some(7) | Some(15) => "light",
        _ => "dark",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_themes_parse_with_every_role() {
        for (name, _) in BUILTIN {
            let t = Theme::builtin(name).unwrap_or_else(|| panic!("{name} parses"));
            assert_eq!(t.roles.len(), ROLES.len());
        }
        let mono = Theme::builtin("mono").unwrap();
        assert!(mono.style("selection").add_modifier.contains(Modifier::REVERSED));
        assert!(!mono.colour);
        assert_eq!(Theme::dark().style("link_broken").fg, Some(Color::Rgb(0xbf, 0x61, 0x6a)));
    }

    #[test]
    fn bad_themes_name_the_file_and_role() {
        let err = Theme::parse("x", "my.toml", "syntax = \"none\"\n[roles]\ntext = \"blurple\"\n").unwrap_err();
        assert!(err.starts_with("my.toml: "), "{err}");
        let missing = Theme::parse("x", "my.toml", "syntax = \"none\"\n[roles]\n").unwrap_err();
        assert_eq!(missing, "my.toml: role `text` is missing");
    }

    #[test]
    fn auto_follows_colorfgbg() {
        assert_eq!(auto_name(Some("0;15")), "light");
        assert_eq!(auto_name(Some("15;0")), "dark");
        assert_eq!(auto_name(None), "dark");
    }
}
