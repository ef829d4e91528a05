//! Vocabulary and prose: enough variety that text, titles and tags look like agent notes and
//! that recall and link extraction see realistic token mixes.
use super::rng::Rng;

pub const NOUNS: &[&str] = &[
    "order",
    "customer",
    "revenue",
    "margin",
    "session",
    "event",
    "invoice",
    "shipment",
    "ledger",
    "account",
    "payment",
    "refund",
    "cohort",
    "funnel",
    "campaign",
    "warehouse",
    "pipeline",
    "schema",
    "partition",
    "cluster",
    "replica",
    "cache",
    "queue",
    "worker",
    "deployment",
    "service",
    "endpoint",
    "token",
    "policy",
    "budget",
    "forecast",
    "metric",
    "dashboard",
    "report",
    "incident",
    "runbook",
    "migration",
    "index",
    "snapshot",
    "backup",
    "vendor",
    "contract",
    "region",
    "tenant",
    "quota",
    "latency",
    "throughput",
    "signal",
    "anomaly",
    "threshold",
];

pub const ADJECTIVES: &[&str] = &[
    "daily",
    "weekly",
    "monthly",
    "regional",
    "global",
    "legacy",
    "primary",
    "secondary",
    "active",
    "archived",
    "gross",
    "net",
    "adjusted",
    "raw",
    "curated",
    "derived",
    "internal",
    "external",
    "shared",
    "private",
    "hot",
    "cold",
    "partial",
    "complete",
    "pending",
    "verified",
    "stale",
    "fresh",
    "canonical",
    "experimental",
];

pub const VERBS: &[&str] = &[
    "aggregates",
    "joins",
    "filters",
    "reconciles",
    "tracks",
    "summarises",
    "exports",
    "validates",
    "deduplicates",
    "enriches",
    "partitions",
    "replicates",
    "caches",
    "schedules",
    "audits",
    "rolls up",
    "normalises",
    "samples",
];

pub const FILLER: &[&str] = &[
    "the", "a", "each", "every", "its", "with", "per", "from", "into", "across", "before", "after", "when", "unless",
    "and", "or", "by", "for", "over", "under", "within", "between", "so that", "which", "because",
];

/// A sentence of `min..=max` words, capitalised, ending with a period.
pub fn sentence(rng: &mut Rng, min: usize, max: usize) -> String {
    let words = rng.range(min, max);
    let mut s = String::with_capacity(words * 8);
    for w in 0..words {
        if w > 0 {
            s.push(' ');
        }
        let word = match w % 4 {
            0 => *rng.pick(ADJECTIVES),
            1 => *rng.pick(NOUNS),
            2 => *rng.pick(VERBS),
            _ => *rng.pick(FILLER),
        };
        if w == 0 {
            let mut c = word.chars();
            if let Some(first) = c.next() {
                s.extend(first.to_uppercase());
                s.push_str(c.as_str());
            }
        } else {
            s.push_str(word);
        }
    }
    s.push('.');
    s
}

/// A paragraph of `min..=max` sentences of 8–18 words.
pub fn paragraph(rng: &mut Rng, min: usize, max: usize) -> String {
    let sentences = rng.range(min, max);
    let mut p = String::new();
    for i in 0..sentences {
        if i > 0 {
            p.push(' ');
        }
        p.push_str(&sentence(rng, 8, 18));
    }
    p
}

/// `adjective-noun` slug and its `Adjective Noun` title for item `i` (the number keeps them unique).
pub fn name(rng: &mut Rng, i: usize) -> (String, String) {
    let adj = *rng.pick(ADJECTIVES);
    let noun = *rng.pick(NOUNS);
    (format!("{adj}-{noun}-{i}"), format!("{} {} {i}", capitalise(adj), capitalise(noun)))
}

pub fn capitalise(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// 1–4 distinct tags.
pub fn tags(rng: &mut Rng) -> Vec<&'static str> {
    let mut t: Vec<&'static str> = (0..rng.range(1, 4)).map(|_| *rng.pick(NOUNS)).collect();
    t.sort_unstable();
    t.dedup();
    t
}

/// An ISO date in 2025–2026.
pub fn date(rng: &mut Rng) -> String {
    format!("{}-{:02}-{:02}", rng.range(2025, 2026), rng.range(1, 12), rng.range(1, 28))
}

/// An ISO UTC datetime in 2025–2026.
pub fn datetime(rng: &mut Rng) -> String {
    format!("{}T{:02}:{:02}:{:02}Z", date(rng), rng.below(24), rng.below(60), rng.below(60))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_and_names_are_deterministic() {
        let a = sentence(&mut Rng::new(3), 10, 10);
        assert_eq!(a, sentence(&mut Rng::new(3), 10, 10));
        assert_eq!(a.split(' ').count(), a.matches(' ').count() + 1);
        assert!(a.ends_with('.') && a.chars().next().unwrap().is_uppercase());
        let (slug, title) = name(&mut Rng::new(3), 42);
        assert!(slug.ends_with("-42") && title.ends_with(" 42"));
        assert_eq!(date(&mut Rng::new(1)).len(), 10);
    }
}
