//! The words and "quoted phrases" of a full-text query.
use crate::store::read::body_text;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Terms {
    /// Every distinct word, phrases' words included (lower case), in query order.
    pub words: Vec<String>,
    /// Each quoted phrase of two or more words, as its words: they must occur in this order.
    pub phrases: Vec<Vec<String>>,
}

impl Terms {
    /// `exif "pip install" Pillow` → words exif, pip, install, pillow; phrase [pip, install].
    /// An unclosed quote runs to the end.
    pub fn parse(text: &str) -> Terms {
        let mut terms = Terms::default();
        for (n, part) in text.split('"').enumerate() {
            let words: Vec<String> = body_text::words(part).map(|(_, w)| w.into_owned()).collect();
            if n % 2 == 1 && words.len() > 1 {
                terms.phrases.push(words.clone());
            }
            for w in words {
                if !terms.words.contains(&w) {
                    terms.words.push(w);
                }
            }
        }
        terms
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The query as the field matcher takes it beside the body search: without the quotes (a
    /// `"` means nothing to it), and each plain word the store's text uses (`known`) a substring
    /// atom (`'word`). Words of prose match the fields as words: scattered letters of them ("git
    /// push asks" in "skip exiftool") would outrank the page whose body is what the words say.
    /// A word the store never uses (a typo, an abbreviation: `mrgn`) stays fuzzy.
    pub fn field_text(text: &str, known: impl Fn(&str) -> bool) -> String {
        text.replace('"', " ")
            .split_whitespace()
            .map(|w| {
                let syntax = w.starts_with(['\'', '^', '!']) || w.ends_with('$');
                if syntax || !known(&w.to_lowercase()) { w.to_string() } else { format!("'{w}") }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Whether the word sequence `words` holds every phrase, each as consecutive words.
pub fn holds_phrases(words: &[String], phrases: &[Vec<String>]) -> bool {
    phrases.iter().all(|p| words.windows(p.len()).any(|w| w == p.as_slice()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_words_are_phrases() {
        let t = Terms::parse("EXIF \"pip install\" pillow \"exif\" \"to the end");
        assert_eq!(t.words, ["exif", "pip", "install", "pillow", "to", "the", "end"]);
        assert_eq!(
            t.phrases,
            [vec!["pip".to_string(), "install".into()], vec!["to".into(), "the".into(), "end".into()]]
        );
        let known = |w: &str| ["exif", "pip", "install", "guide", "end"].contains(&w);
        assert_eq!(Terms::field_text("EXIF \"pip install\" mrgn", known), "'EXIF 'pip 'install mrgn");
        assert_eq!(Terms::field_text("^guide 'exact !not end$", known), "^guide 'exact !not end$");
        let words: Vec<String> = ["run", "pip", "install", "now"].map(String::from).to_vec();
        assert!(holds_phrases(&words, &t.phrases[..1]));
        assert!(!holds_phrases(&words, &t.phrases));
    }
}
