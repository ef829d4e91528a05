//! Code-block highlighting with syntect and two-face's syntaxes and themes. Work happens on a
//! worker thread; results are cached by (language, theme, code) and the UI is told to redraw.
//! Until a block is ready it is shown plain, so a frame never waits on highlighting.
use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, LazyLock, Mutex};

use syntect::easy::HighlightLines;
use syntect::highlighting::Theme;
use syntect::parsing::SyntaxSet;
use two_face::theme::{EmbeddedLazyThemeSet, EmbeddedThemeName};

pub type Rgb = (u8, u8, u8);
/// Per source line, the coloured runs.
pub type Highlighted = Vec<Vec<(Rgb, String)>>;

/// Blocks longer than this stay plain (highlighting a 50 000-line dump helps nobody).
const MAX_LINES: usize = 2_000;

static SYNTAXES: LazyLock<SyntaxSet> = LazyLock::new(two_face::syntax::extra_newlines);
static THEMES: LazyLock<EmbeddedLazyThemeSet> = LazyLock::new(two_face::theme::extra);

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    lang: String,
    theme: String,
    code: u64,
}

impl Key {
    fn new(lang: &str, theme: &str, code: &str) -> Key {
        let mut h = DefaultHasher::new();
        code.hash(&mut h);
        Key { lang: lang.to_lowercase(), theme: theme.to_string(), code: h.finish() }
    }
}

type Cache = Arc<Mutex<HashMap<Key, Option<Arc<Highlighted>>>>>;

pub struct Highlighter {
    cache: Cache,
    pending: Mutex<HashSet<Key>>,
    /// `None`: highlight in the caller (tests, screenshots, benches).
    worker: Option<Sender<(Key, String)>>,
}

impl Highlighter {
    /// Highlight on a worker thread; `on_ready` is called after each block is done.
    pub fn spawn(on_ready: impl Fn() + Send + 'static) -> Highlighter {
        let cache: Cache = Arc::default();
        let (tx, rx) = channel::<(Key, String)>();
        let shared = cache.clone();
        std::thread::Builder::new()
            .name("folio-highlight".into())
            .spawn(move || {
                for (key, code) in rx {
                    let result = highlight(&key.lang, &key.theme, &code).map(Arc::new);
                    if let Ok(mut c) = shared.lock() {
                        c.insert(key, result);
                    }
                    on_ready();
                }
            })
            .ok();
        Highlighter { cache, pending: Mutex::default(), worker: Some(tx) }
    }

    /// Highlight in the calling thread (deterministic output for tests and screenshots).
    pub fn synchronous() -> Highlighter {
        Highlighter { cache: Arc::default(), pending: Mutex::default(), worker: None }
    }

    /// The highlighted block if ready; otherwise queue it and return `None` (shown plain).
    pub fn get(&self, lang: &str, theme: &str, code: &str) -> Option<Arc<Highlighted>> {
        if lang.is_empty() || theme.is_empty() || theme == "none" {
            return None;
        }
        let key = Key::new(lang, theme, code);
        if let Some(hit) = self.cache.lock().ok()?.get(&key) {
            return hit.clone();
        }
        match &self.worker {
            None => {
                let result = highlight(lang, theme, code).map(Arc::new);
                self.cache.lock().ok()?.insert(key, result.clone());
                result
            }
            Some(tx) => {
                let mut pending = self.pending.lock().ok()?;
                if pending.insert(key.clone()) {
                    let _ = tx.send((key, code.to_string()));
                }
                None
            }
        }
    }
}

/// Whether `name` is a syntax theme folio can use.
pub fn theme_exists(name: &str) -> bool {
    theme_by_name(name).is_some()
}

fn theme_by_name(name: &str) -> Option<&'static Theme> {
    let found = EmbeddedLazyThemeSet::theme_names().iter().find(|t| t.as_name().eq_ignore_ascii_case(name))?;
    // The `ansi` themes encode palette indices, not colours; folio maps roles itself there.
    if matches!(found, EmbeddedThemeName::Ansi | EmbeddedThemeName::Base16 | EmbeddedThemeName::Base16_256) {
        return None;
    }
    Some(THEMES.get(*found))
}

/// Highlight `code` as `lang` (a fence token: `rust`, `py`, `yaml`…) with the named theme.
pub fn highlight(lang: &str, theme: &str, code: &str) -> Option<Highlighted> {
    let theme = theme_by_name(theme)?;
    let syntax = SYNTAXES.find_syntax_by_token(lang)?;
    let mut h = HighlightLines::new(syntax, theme);
    let mut out = Vec::new();
    for line in syntect::util::LinesWithEndings::from(code).take(MAX_LINES) {
        let ranges = h.highlight_line(line, &SYNTAXES).ok()?;
        out.push(
            ranges
                .into_iter()
                .map(|(style, text)| {
                    let c = style.foreground;
                    ((c.r, c.g, c.b), text.trim_end_matches(['\n', '\r']).to_string())
                })
                .filter(|(_, t)| !t.is_empty())
                .collect(),
        );
    }
    if code.lines().count() > MAX_LINES {
        return None;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_is_coloured_and_unknown_languages_stay_plain() {
        let h = highlight("rust", "base16-ocean.dark", "fn main() {}\nlet x = 1;\n").unwrap();
        assert_eq!(h.len(), 2);
        let first: String = h[0].iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(first, "fn main() {}");
        let colours: HashSet<Rgb> = h[0].iter().map(|(c, _)| *c).collect();
        assert!(colours.len() > 1, "keyword and name differ in colour");
        assert!(highlight("no-such-language", "base16-ocean.dark", "x").is_none());
        assert!(highlight("rust", "no-such-theme", "x").is_none());
    }

    #[test]
    fn worker_fills_the_cache_and_reports() {
        let (tx, rx) = channel();
        let h = Highlighter::spawn(move || {
            let _ = tx.send(());
        });
        assert!(h.get("json", "base16-ocean.dark", "{\"a\": 1}").is_none());
        rx.recv_timeout(std::time::Duration::from_secs(20)).unwrap();
        assert!(h.get("json", "base16-ocean.dark", "{\"a\": 1}").is_some());
    }
}
