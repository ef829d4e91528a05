//! `possible-contradiction` (info): a near-duplicate pair whose texts disagree on a fact. Each
//! text is cut into clauses, and a clause states a fact about the words it names: that they are
//! installed or not ("Pillow is not installed" / "`pip install Pillow`"), to be used or not
//! ("use X" / "never use X"), or a number for a named thing ("timeout is 30" / "timeout is 60").
//! Two texts disagreeing on the same word's fact are a candidate for a person to look at; the
//! finding shows both sentences.
use super::Finding;
use crate::store::Store;
use crate::store::model::entity::EntityIdx;
use crate::store::read::body_text;

pub const RULE: &str = "possible-contradiction";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topic {
    Installed,
    Used,
    Number,
}

/// One fact a clause states about one word.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    pub topic: Topic,
    pub subject: String,
    /// Installed/Used: whether it is negated. Number: the number as written.
    pub value: String,
    /// The sentence the clause is part of, as written.
    pub sentence: String,
}

const NEGATIONS: &[&str] =
    &["not", "no", "never", "neither", "nor", "without", "cannot", "isn", "aren", "doesn", "don", "won", "t"];
const INSTALLED: &[&str] = &["install", "installed", "installing", "available", "unavailable", "missing", "present"];
const USED: &[&str] = &["use", "using", "prefer", "avoid", "choose"];
/// Words that make a clause negative by themselves.
const NEGATIVE_WORDS: &[&str] = &["missing", "unavailable", "avoid"];
/// Words never taken for what a fact is about.
const GENERIC: &[&str] = &[
    "pip",
    "via",
    "pre",
    "can",
    "also",
    "just",
    "directly",
    "instead",
    "always",
    "ever",
    "now",
    "get",
    "go",
    "run",
    "make",
    "sure",
    "data",
    "file",
    "files",
    "tool",
    "tools",
    "package",
    "packages",
    "environment",
    "sandbox",
    "workspace",
    "session",
    "task",
    "step",
    "steps",
];

/// Words before a number that qualify it rather than name what it counts.
const QUALIFIERS: &[&str] = &[
    "between",
    "last",
    "first",
    "next",
    "least",
    "than",
    "under",
    "every",
    "per",
    "around",
    "approximately",
    "step",
    "days",
    "day",
    "hours",
    "minutes",
    "seconds",
    "times",
    "top",
    "page",
    "line",
    "lines",
    "version",
    "figure",
    "table",
    // Cross-references: `see §6`, `section 5.1`.
    "see",
    "section",
    "sections",
    "chapter",
    "appendix",
    "part",
    "issue",
    "round",
    "phase",
];
/// How many words before a number its name may stand.
const NAME_WINDOW: usize = 3;

/// Installed cues that name what follows them ("install X", "missing X") unless stated of
/// what precedes them ("X is missing"); the others name what precedes them ("X is installed").
const AFTER_CUES: &[&str] = &["install", "installing", "missing"];
/// How many words before or after an installed cue its subject may stand.
const BEFORE_WINDOW: usize = 5;
const AFTER_WINDOW: usize = 3;

/// Whether a word of a clause may be what a fact is about.
fn is_subject(w: &str) -> bool {
    w.len() > 2 && !body_text::is_stopword(w) && !is_cue(w) && !w.bytes().all(|b| b.is_ascii_digit())
}

fn is_cue(w: &str) -> bool {
    NEGATIONS.contains(&w) || INSTALLED.contains(&w) || USED.contains(&w) || GENERIC.contains(&w)
}

/// Sentences of a text: split at `.`/`!`/`?` followed by a space or line end, and at lines.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut start = 0;
        let bytes = line.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            let end = i + 1 == bytes.len() || bytes[i + 1] == b' ';
            if matches!(b, b'.' | b'!' | b'?') && end {
                out.push(line[start..=i].trim());
                start = i + 1;
            }
        }
        out.push(line[start..].trim());
    }
    out.retain(|s| !s.is_empty());
    out
}

/// Clauses of a sentence: split at punctuation that separates statements and at the
/// conjunctions that join two of them ("X is missing but Y works").
fn clauses(sentence: &str) -> Vec<String> {
    let mut text = sentence.to_lowercase();
    for join in [" but ", " then ", " and ", " so ", " however "] {
        text = text.replace(join, ";");
    }
    text.split([',', ';', ':', '(', ')']).map(|c| c.trim().to_string()).filter(|c| !c.is_empty()).collect()
}

/// The prose of a text: fenced code is left out (its numbers and keywords state no facts).
fn prose(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_code = !in_code;
        } else if !in_code {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The facts of a text's prose, in order.
pub fn facts(text: &str) -> Vec<Fact> {
    let mut out = Vec::new();
    let text = prose(text);
    for sentence in sentences(&text) {
        for clause in clauses(sentence) {
            let words: Vec<String> = body_text::words(&clause).map(|(_, w)| w.into_owned()).collect();
            let subjects = || words.iter().filter(|w| is_subject(w));
            let negative =
                words.iter().any(|w| NEGATIONS.contains(&w.as_str()) || NEGATIVE_WORDS.contains(&w.as_str()));
            let fact = |topic, subject: &String| Fact {
                topic,
                subject: subject.clone(),
                value: negative.to_string(),
                sentence: sentence.to_string(),
            };
            // Installed: only the words the cue is about ("X is not installed", "install X",
            // "missing X"), not every word of the clause ("flag stale awareness or missing
            // daily files" says nothing about awareness).
            let mut installed: Vec<&String> = Vec::new();
            for (i, w) in words.iter().enumerate() {
                if !INSTALLED.contains(&w.as_str()) {
                    continue;
                }
                let stated = i > 0 && matches!(words[i - 1].as_str(), "is" | "are" | "was" | "were" | "not");
                let range = if AFTER_CUES.contains(&w.as_str()) && !stated {
                    i + 1..(i + 1 + AFTER_WINDOW).min(words.len())
                } else {
                    i.saturating_sub(BEFORE_WINDOW)..i
                };
                installed.extend(words[range].iter().filter(|w| is_subject(w)));
            }
            for s in installed.iter().copied().collect::<std::collections::BTreeSet<_>>() {
                out.push(fact(Topic::Installed, s));
            }
            if words.iter().any(|w| USED.contains(&w.as_str())) {
                for s in subjects() {
                    out.push(fact(Topic::Used, s));
                }
            }
            out.extend(numbers(&clause).into_iter().map(|(subject, value)| Fact {
                topic: Topic::Number,
                subject,
                value,
                sentence: sentence.to_string(),
            }));
        }
    }
    out
}

/// (named thing, number) pairs of a clause: a number (digits with dots, like `3.11`) and the
/// nearest word before it that names something.
fn numbers(clause: &str) -> Vec<(String, String)> {
    let words: Vec<(usize, String)> = body_text::words(clause).map(|(i, w)| (i, w.into_owned())).collect();
    let mut out = Vec::new();
    let bytes = clause.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let starts = bytes[i].is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric());
        if !starts {
            i += 1;
            continue;
        }
        let mut end = i;
        while end < bytes.len()
            && (bytes[end].is_ascii_digit()
                || (bytes[end] == b'.' && end + 1 < bytes.len() && bytes[end + 1].is_ascii_digit()))
        {
            end += 1;
        }
        if end < bytes.len() && bytes[end].is_ascii_alphabetic() {
            // `2x`, `h264`: part of a name, not a number.
            i = end;
            continue;
        }
        let joined = |at: usize, digit: usize| {
            matches!(bytes.get(at), Some(b'-' | b'/' | b':')) && bytes.get(digit).is_some_and(u8::is_ascii_digit)
        };
        if joined(end, end + 1) || (i >= 2 && joined(i - 1, i - 2)) {
            // `2026-08-12`, `02:30`, `7-14`: a date, a time or a range states no one number.
            while end < bytes.len() && (bytes[end].is_ascii_digit() || joined(end, end + 1)) {
                end += 1;
            }
            i = end;
            continue;
        }
        let name = words.iter().rev().filter(|(at, _)| *at < i).take(NAME_WINDOW).find(|(_, w)| {
            w.len() > 2 && !body_text::is_stopword(w) && !is_cue(w) && !w.bytes().all(|b| b.is_ascii_digit())
        });
        let name = name.filter(|(_, w)| !QUALIFIERS.contains(&w.as_str()));
        if let Some((_, name)) = name {
            out.push((name.clone(), clause[i..end].to_string()));
        }
        i = end;
    }
    out
}

/// The first pair of facts on which the two texts disagree: (fact of `a`, fact of `b`).
pub fn disagreement(a: &[Fact], b: &[Fact]) -> Option<(Fact, Fact)> {
    for fa in a {
        for fb in b {
            if fa.topic == fb.topic && fa.subject == fb.subject && !same_value(fa, fb) {
                // A text that says both things about the word disagrees with nothing.
                let also = |facts: &[Fact], f: &Fact| {
                    facts.iter().any(|x| x.topic == f.topic && x.subject == f.subject && x.value == f.value)
                };
                if fa.topic == Topic::Number && (also(a, fb) || also(b, fa)) {
                    continue;
                }
                if fa.topic != Topic::Number && also(a, fb) && also(b, fa) {
                    continue;
                }
                return Some((fa.clone(), fb.clone()));
            }
        }
    }
    None
}

/// Numbers are equal by value (`100` and `100.0`), other values as written.
fn same_value(a: &Fact, b: &Fact) -> bool {
    match (a.value.parse::<f64>(), b.value.parse::<f64>()) {
        (Ok(x), Ok(y)) if a.topic == Topic::Number => x == y,
        _ => a.value == b.value,
    }
}

fn describe(f: &Fact) -> String {
    match f.topic {
        Topic::Installed if f.value == "true" => format!("`{}` is not installed", f.subject),
        Topic::Installed => format!("`{}` is installed", f.subject),
        Topic::Used if f.value == "true" => format!("do not use `{}`", f.subject),
        Topic::Used => format!("use `{}`", f.subject),
        Topic::Number => format!("`{}` is {}", f.subject, f.value),
    }
}

/// The findings over near-duplicate `pairs` (from `near_duplicate::check`): one per entity of a
/// disagreeing pair, quoting its own sentence and the other's. A pair a person dismissed
/// (`dismissed`, id pairs sorted) or already declared (`contradicts`) is not a candidate.
pub fn check(store: &Store, pairs: &[(u32, u32, f64)], dismissed: &[(&str, &str)], out: &mut Vec<Finding>) {
    for &(a, b, _) in pairs {
        let (ia, ib) = (store.entity(a).id.as_str(), store.entity(b).id.as_str());
        if dismissed.contains(&if ia <= ib { (ia, ib) } else { (ib, ia) }) || declared(store, a, b) {
            continue;
        }
        let (ta, tb) = (body_text::compared_text(store, a), body_text::compared_text(store, b));
        let Some((fa, fb)) = disagreement(&facts(&ta), &facts(&tb)) else { continue };
        for (me, other, mine, theirs) in [(a, b, &fa, &fb), (b, a, &fb, &fa)] {
            let mut f = Finding::on_entity(
                store,
                me as EntityIdx,
                RULE,
                store.entity(me).line,
                1,
                format!(
                    "may contradict `{}`: here {} (\"{}\"), there {} (\"{}\")",
                    store.entity(other).id,
                    describe(mine),
                    mine.sentence,
                    describe(theirs),
                    theirs.sentence
                ),
            );
            f.other = Some(other as EntityIdx);
            out.push(f);
        }
    }
}

/// Whether either entity already says it contradicts the other.
fn declared(store: &Store, a: u32, b: u32) -> bool {
    let names = |x: u32, y: u32| store.entity(x).edges.iter().any(|e| e.kind == "contradicts" && e.resolved == Some(y));
    names(a, b) || names(b, a)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(a: &str, b: &str) -> Option<(String, String)> {
        disagreement(&facts(a), &facts(b)).map(|(x, y)| (describe(&x), describe(&y)))
    }

    #[test]
    fn installed_against_not_installed() {
        let a = "Skip directly to manual parsing. Neither exiftool nor PIL/Pillow are installed.";
        let b = "Skip exiftool (not installed) and go directly to: `pip install Pillow -q` then use PIL/Pillow.";
        let (x, y) = found(a, b).expect("a disagreement");
        assert_eq!((x.as_str(), y.as_str()), ("`pillow` is not installed", "`pillow` is installed"));
        assert_eq!(found(a, "Neither exiftool nor Pillow is available."), None, "agreeing texts");
        assert_eq!(
            found(
                "- At session start, run `awareness status` or `awareness check` when the CLI is available.",
                "- Hourly checks may flag stale awareness or missing daily files."
            ),
            None,
            "what is missing is the files, what is available the CLI"
        );
        assert_eq!(
            found("The pgbackrest binary is missing on kv01.", "Install pgbackrest from the PGDG repository."),
            Some(("`pgbackrest` is not installed".into(), "`pgbackrest` is installed".into()))
        );
    }

    #[test]
    fn use_against_never_use_and_numbers() {
        assert_eq!(
            found("Always use rsync for the backups.", "Never use rsync for the backups; copy with tar."),
            Some(("use `rsync`".into(), "do not use `rsync`".into()))
        );
        assert_eq!(
            found("The request timeout is 30 seconds.", "Set the request timeout to 60 seconds."),
            Some(("`timeout` is 30".into(), "`timeout` is 60".into()))
        );
        assert_eq!(
            found("Python 3.11 is required.", "Python 3.12 is required."),
            Some(("`python` is 3.11".into(), "`python` is 3.12".into()))
        );
        assert_eq!(found("The request timeout is 30 seconds.", "The request timeout is 30 seconds."), None);
        assert_eq!(found("Divide by 100 here.", "Divide by 100.0 here."), None, "equal numbers");
        assert_eq!(found("Keep the last 10 days.", "Keep the last 20 days."), None, "a qualifier names nothing");
        assert_eq!(found("```\nretries = 3\n```", "```\nretries = 5\n```"), None, "code states no facts");
        assert_eq!(found("# Daily Worklog - 2026-08-12", "# Daily Worklog - 2026-08-13"), None, "a date is no number");
        assert_eq!(found("The backup ran at 02:51.", "The backup ran at 02:58."), None, "a time is no number");
        assert_eq!(found("Cohort of 7-14 days ago.", "Cohort of 1-2 weeks ago."), None, "a range is no number");
        assert_eq!(found("See §6.", "Signals, not a verdict (see §5.1)."), None, "a cross-reference");
    }

    #[test]
    fn sentences_and_clauses() {
        assert_eq!(sentences("One. Two is 3.5 here!\nThree"), ["One.", "Two is 3.5 here!", "Three"]);
        assert_eq!(
            clauses("Pillow is missing but pip works, then run it"),
            ["pillow is missing", "pip works", "run it"]
        );
    }
}
