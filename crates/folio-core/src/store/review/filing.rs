//! Where an approval files an entity, for formats that file approved entries under a section
//! (awareness: the framework's `memory promote --kind`): the sections the person can pick
//! from, and the one folio infers, with why, so a plain approval needs no question first.

/// One section an approval can file the entity under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilingChoice {
    /// The word `Verdict::Approve { kind }` and the CLI's `--kind` take (`pattern`).
    pub kind: String,
    /// The section's heading in the file (`Patterns`).
    pub section: String,
}

/// The choices, in the file's order, and the inferred one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filing {
    pub choices: Vec<FilingChoice>,
    /// The index in `choices` folio infers, and why (None: it cannot tell; ask).
    pub inferred: Option<(usize, String)>,
}

impl Filing {
    /// The choice `answer` names: its number (1-based), its kind or its section, any case.
    pub fn pick(&self, answer: &str) -> Option<usize> {
        let a = answer.trim();
        if let Ok(n) = a.parse::<usize>() {
            return (1..=self.choices.len()).contains(&n).then(|| n - 1);
        }
        self.choices.iter().position(|c| c.kind.eq_ignore_ascii_case(a) || c.section.eq_ignore_ascii_case(a))
    }

    /// `1 Preferences · 2 Patterns · …`, as a question or a dialog lists them.
    pub fn numbered(&self) -> String {
        let each: Vec<String> =
            self.choices.iter().enumerate().map(|(i, c)| format!("{} {}", i + 1, c.section)).collect();
        each.join(" · ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_picks_by_number_kind_or_section() {
        let choice = |k: &str, s: &str| FilingChoice { kind: k.into(), section: s.into() };
        let f = Filing {
            choices: vec![choice("preference", "Preferences"), choice("pattern", "Patterns")],
            inferred: None,
        };
        assert_eq!(f.pick("2"), Some(1));
        assert_eq!(f.pick("Preference"), Some(0));
        assert_eq!(f.pick("patterns"), Some(1));
        assert_eq!(f.pick("3"), None);
        assert_eq!(f.pick("project"), None);
        assert_eq!(f.numbered(), "1 Preferences · 2 Patterns");
    }
}
