//! Key bindings: the embedded `keymaps/default.toml` merged with the user's overrides, looked
//! up per context, with multi-key sequences (`gg`) and which-key candidates.
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde::Deserialize;

use crate::app::action::Action;

pub const DEFAULT_KEYMAP: &str = include_str!("../../../../../keymaps/default.toml");

/// Where a binding applies. Overlays get first look, then the focused pane, then global.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Context {
    Global,
    Catalog,
    Preview,
    Overlay,
    /// The review inbox.
    Review,
    /// The in-app editor (keys it does not bind are typed into the focused field).
    Editor,
    Graph,
    Lint,
    /// The open entity's history (versions, blame).
    History,
    Recall,
    /// A confirm dialog showing what a change will do (a review verdict or a lint fix).
    Confirm,
    /// The entity's properties shown whole (`K`).
    Properties,
}

impl Context {
    pub const ALL: [Context; 12] = [
        Context::Global,
        Context::Catalog,
        Context::Preview,
        Context::Overlay,
        Context::Review,
        Context::Editor,
        Context::Graph,
        Context::Lint,
        Context::History,
        Context::Recall,
        Context::Confirm,
        Context::Properties,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Context::Global => "global",
            Context::Catalog => "catalog",
            Context::Preview => "preview",
            Context::Overlay => "overlay",
            Context::Review => "review",
            Context::Editor => "editor",
            Context::Graph => "graph",
            Context::Lint => "lint",
            Context::History => "history",
            Context::Recall => "recall",
            Context::Confirm => "confirm",
            Context::Properties => "properties",
        }
    }
}

/// One key press, normalised: characters carry their own case, so Shift is only kept for
/// non-character keys (`<S-Tab>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub ctrl: bool,
    pub alt: bool,
    pub shift: bool,
}

impl Key {
    pub fn from_event(e: &KeyEvent) -> Key {
        let code = match e.code {
            KeyCode::BackTab => KeyCode::Tab,
            c => c,
        };
        let is_char = matches!(code, KeyCode::Char(_));
        Key {
            code,
            ctrl: e.modifiers.contains(KeyModifiers::CONTROL),
            alt: e.modifiers.contains(KeyModifiers::ALT),
            shift: !is_char && (e.modifiers.contains(KeyModifiers::SHIFT) || e.code == KeyCode::BackTab),
        }
    }

    pub fn char(c: char) -> Key {
        Key { code: KeyCode::Char(c), ctrl: false, alt: false, shift: false }
    }

    /// Parse `a`, `?`, `<Enter>`, `<C-d>`, `<S-Tab>`, `<A-y>`, `<F5>`.
    pub fn parse(s: &str) -> Option<Key> {
        let mut chars = s.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            return Some(Key::char(c));
        }
        let inner = s.strip_prefix('<')?.strip_suffix('>')?;
        let mut key = Key::char(' ');
        let mut rest = inner;
        loop {
            match rest.get(..2) {
                Some("C-") if rest.len() > 2 => key.ctrl = true,
                Some("A-") if rest.len() > 2 => key.alt = true,
                Some("S-") if rest.len() > 2 => key.shift = true,
                _ => break,
            }
            rest = &rest[2..];
        }
        key.code = match rest {
            "Enter" | "CR" => KeyCode::Enter,
            "Esc" => KeyCode::Esc,
            "Tab" => KeyCode::Tab,
            "Space" => KeyCode::Char(' '),
            "Backspace" | "BS" => KeyCode::Backspace,
            "Up" => KeyCode::Up,
            "Down" => KeyCode::Down,
            "Left" => KeyCode::Left,
            "Right" => KeyCode::Right,
            "PageUp" => KeyCode::PageUp,
            "PageDown" => KeyCode::PageDown,
            "Home" => KeyCode::Home,
            "End" => KeyCode::End,
            "Delete" | "Del" => KeyCode::Delete,
            "lt" => KeyCode::Char('<'),
            f if f.starts_with('F') => KeyCode::F(f[1..].parse().ok().filter(|n| (1..=12).contains(n))?),
            c => {
                let mut cs = c.chars();
                match (cs.next(), cs.next()) {
                    (Some(ch), None) => KeyCode::Char(if key.ctrl { ch.to_ascii_lowercase() } else { ch }),
                    _ => return None,
                }
            }
        };
        if matches!(key.code, KeyCode::Char(_)) {
            key.shift = false;
        }
        Some(key)
    }

    /// The notation `parse` accepts, for help and hints.
    pub fn display(&self) -> String {
        let base = match self.code {
            KeyCode::Char(' ') => "Space".to_string(),
            KeyCode::Char(c) if !self.ctrl && !self.alt => return c.to_string(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Enter => "Enter".into(),
            KeyCode::Esc => "Esc".into(),
            KeyCode::Tab => "Tab".into(),
            KeyCode::Backspace => "Backspace".into(),
            KeyCode::Up => "Up".into(),
            KeyCode::Down => "Down".into(),
            KeyCode::Left => "Left".into(),
            KeyCode::Right => "Right".into(),
            KeyCode::PageUp => "PageUp".into(),
            KeyCode::PageDown => "PageDown".into(),
            KeyCode::Home => "Home".into(),
            KeyCode::End => "End".into(),
            KeyCode::Delete => "Delete".into(),
            KeyCode::F(n) => format!("F{n}"),
            _ => "?".into(),
        };
        let mods = format!(
            "{}{}{}",
            if self.ctrl { "C-" } else { "" },
            if self.alt { "A-" } else { "" },
            if self.shift { "S-" } else { "" }
        );
        format!("<{mods}{base}>")
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    pub keys: Vec<Key>,
    pub action: Action,
    pub desc: String,
}

impl Binding {
    pub fn keys_display(&self) -> String {
        self.keys.iter().map(Key::display).collect()
    }
}

/// A problem in a keymap file; folio starts with the defaults for that entry.
#[derive(Debug, Clone, PartialEq)]
pub struct KeymapError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for KeymapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

#[derive(Debug, Clone, Default)]
pub struct Keymap {
    bindings: Vec<(Context, Binding)>,
}

/// What a key sequence means in a context.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    Action(Action),
    /// The keys so far start one or more longer bindings: wait for the next key.
    Prefix,
    None,
}

#[derive(Deserialize)]
struct File {
    #[serde(default)]
    global: Vec<Entry>,
    #[serde(default)]
    catalog: Vec<Entry>,
    #[serde(default)]
    preview: Vec<Entry>,
    #[serde(default)]
    overlay: Vec<Entry>,
    #[serde(default)]
    review: Vec<Entry>,
    #[serde(default)]
    editor: Vec<Entry>,
    #[serde(default)]
    graph: Vec<Entry>,
    #[serde(default)]
    lint: Vec<Entry>,
    #[serde(default)]
    history: Vec<Entry>,
    #[serde(default)]
    recall: Vec<Entry>,
    #[serde(default)]
    confirm: Vec<Entry>,
    #[serde(default)]
    properties: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    on: toml::Spanned<On>,
    run: toml::Spanned<String>,
    #[serde(default)]
    desc: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum On {
    One(String),
    Seq(Vec<String>),
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

impl Keymap {
    /// The built-in bindings.
    pub fn defaults() -> Keymap {
        let mut k = Keymap::default();
        let errors = k.merge("keymaps/default.toml", DEFAULT_KEYMAP);
        debug_assert!(errors.is_empty(), "{errors:?}");
        k
    }

    /// Apply a keymap file over the current bindings. Bad entries are skipped and reported.
    pub fn merge(&mut self, file: &str, text: &str) -> Vec<KeymapError> {
        let err = |line, message: String| KeymapError { file: file.to_string(), line, message };
        let parsed: File = match toml::from_str(text) {
            Ok(f) => f,
            Err(e) => {
                let line = e.span().map(|s| line_of(text, s.start)).unwrap_or(1);
                return vec![err(line, e.message().to_string())];
            }
        };
        let mut errors = Vec::new();
        let sections = [
            (Context::Global, parsed.global),
            (Context::Catalog, parsed.catalog),
            (Context::Preview, parsed.preview),
            (Context::Overlay, parsed.overlay),
            (Context::Review, parsed.review),
            (Context::Editor, parsed.editor),
            (Context::Graph, parsed.graph),
            (Context::Lint, parsed.lint),
            (Context::History, parsed.history),
            (Context::Recall, parsed.recall),
            (Context::Confirm, parsed.confirm),
            (Context::Properties, parsed.properties),
        ];
        for (ctx, entries) in sections {
            for entry in entries {
                let line = line_of(text, entry.on.span().start);
                let words = match entry.on.get_ref() {
                    On::One(s) => vec![s.clone()],
                    On::Seq(v) => v.clone(),
                };
                let keys: Option<Vec<Key>> = words.iter().map(|w| Key::parse(w)).collect();
                let Some(keys) = keys.filter(|k| !k.is_empty()) else {
                    errors.push(err(line, format!("[{}] unknown key `{}`", ctx.name(), words.join(" "))));
                    continue;
                };
                let Some(action) = Action::from_name(entry.run.get_ref()) else {
                    let line = line_of(text, entry.run.span().start);
                    errors.push(err(
                        line,
                        format!("[{}] key `{}`: unknown action `{}`", ctx.name(), words.join(" "), entry.run.get_ref()),
                    ));
                    continue;
                };
                self.bindings.retain(|(c, b)| !(*c == ctx && b.keys == keys));
                if action != Action::Noop {
                    let desc = entry.desc.unwrap_or_else(|| action.desc().to_string());
                    self.bindings.push((ctx, Binding { keys, action, desc }));
                }
            }
        }
        errors
    }

    /// Look the pressed keys up in the contexts, in priority order.
    pub fn lookup(&self, contexts: &[Context], keys: &[Key]) -> Lookup {
        for ctx in contexts {
            let mut prefix = false;
            for (c, b) in &self.bindings {
                if c != ctx {
                    continue;
                }
                if b.keys == keys {
                    return Lookup::Action(b.action);
                }
                if b.keys.len() > keys.len() && b.keys.starts_with(keys) {
                    prefix = true;
                }
            }
            if prefix {
                return Lookup::Prefix;
            }
        }
        Lookup::None
    }

    /// Bindings continuing the pressed prefix (for the which-key popup).
    pub fn continuations(&self, contexts: &[Context], keys: &[Key]) -> Vec<&Binding> {
        self.bindings
            .iter()
            .filter(|(c, b)| contexts.contains(c) && b.keys.len() > keys.len() && b.keys.starts_with(keys))
            .map(|(_, b)| b)
            .collect()
    }

    pub fn bindings(&self, ctx: Context) -> impl Iterator<Item = &Binding> {
        self.bindings.iter().filter(move |(c, _)| *c == ctx).map(|(_, b)| b)
    }

    /// The first key sequence bound to `action` in these contexts (for hints and the palette).
    pub fn key_for(&self, contexts: &[Context], action: Action) -> Option<String> {
        contexts.iter().find_map(|ctx| self.bindings(*ctx).find(|b| b.action == action).map(Binding::keys_display))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_key_notation() {
        assert_eq!(Key::parse("q"), Some(Key::char('q')));
        assert_eq!(Key::parse("<C-d>").unwrap().display(), "<C-d>");
        assert_eq!(Key::parse("<S-Tab>").unwrap().display(), "<S-Tab>");
        assert_eq!(Key::parse("<Space>"), Some(Key::char(' ')));
        assert_eq!(Key::parse("<F5>").unwrap().code, KeyCode::F(5));
        assert_eq!(Key::parse("<Nope>"), None);
        assert_eq!(Key::parse("ab"), None);
    }

    #[test]
    fn defaults_bind_vim_keys_arrows_and_sequences() {
        let k = Keymap::defaults();
        let cat = [Context::Catalog, Context::Global];
        assert_eq!(k.lookup(&cat, &[Key::char('j')]), Lookup::Action(Action::Down));
        assert_eq!(k.lookup(&cat, &[Key::parse("<Down>").unwrap()]), Lookup::Action(Action::Down));
        assert_eq!(k.lookup(&cat, &[Key::char('g')]), Lookup::Prefix);
        assert_eq!(k.lookup(&cat, &[Key::char('g'), Key::char('g')]), Lookup::Action(Action::Top));
        assert_eq!(k.lookup(&cat, &[Key::char('q')]), Lookup::Action(Action::Quit));
        assert_eq!(k.continuations(&cat, &[Key::char('g')]).len(), 1);
        // Every default `run` names an action.
        for ctx in Context::ALL {
            assert!(k.bindings(ctx).count() > 0 || ctx == Context::Overlay);
        }
    }

    #[test]
    fn overrides_replace_add_and_unbind() {
        let mut k = Keymap::defaults();
        let errors = k.merge(
            "user.toml",
            "[[catalog]]\non = \"j\"\nrun = \"up\"\n\n[[catalog]]\non = \"x\"\nrun = \"bottom\"\n\n[[global]]\non = \"q\"\nrun = \"noop\"\n",
        );
        assert!(errors.is_empty(), "{errors:?}");
        let cat = [Context::Catalog, Context::Global];
        assert_eq!(k.lookup(&cat, &[Key::char('j')]), Lookup::Action(Action::Up));
        assert_eq!(k.lookup(&cat, &[Key::char('x')]), Lookup::Action(Action::Bottom));
        assert_eq!(k.lookup(&cat, &[Key::char('q')]), Lookup::None);
    }

    #[test]
    fn bad_entries_name_file_line_and_key() {
        let mut k = Keymap::defaults();
        let errors = k.merge(
            "user.toml",
            "[[catalog]]\non = \"j\"\nrun = \"fly\"\n\n[[preview]]\non = \"<Bogus>\"\nrun = \"up\"\n",
        );
        assert_eq!(errors.len(), 2);
        assert_eq!(errors[0].to_string(), "user.toml:3: [catalog] key `j`: unknown action `fly`");
        assert_eq!(errors[1].to_string(), "user.toml:6: [preview] unknown key `<Bogus>`");
        // The default for `j` survives.
        assert_eq!(k.lookup(&[Context::Catalog], &[Key::char('j')]), Lookup::Action(Action::Down));
        let broken = k.merge("user.toml", "[[catalog]\n");
        assert_eq!(broken.len(), 1);
        assert_eq!(broken[0].line, 1);
    }
}
