//! awareness homes (`~/.agents`): `memory/long-term.md` with the template's sections and
//! `- YYYY-MM-DD: text (evidence: …)` entries (one entity each) in the four curated sections,
//! `memory/events.jsonl` with the event that promoted every entry (as large as a long-lived
//! home's), `AGENTS.md` and the awareness board.
use std::io;

use super::rng::Rng;
use super::{Writer, words};

const CURATED: &[&str] = &["Preferences", "Patterns", "Project Conventions", "Review Guidance"];
const OTHER: &[&str] = &["Promotion Candidates", "Review Notes", "Event Log", "Pruned Or Revised", "Guardrails"];

pub fn generate(w: &Writer, n: usize, seed: u64) -> io::Result<usize> {
    let mut rng = Rng::new(seed);
    let mut text = String::from(
        "# Long-Term Memory\n\n- Updated: 2026-05-01 10:00 +00:00\n- Scope: Local private state; do not commit\n",
    );
    let mut events = String::new();
    for (s, section) in CURATED.iter().enumerate() {
        text.push_str(&format!("\n## {section}\n\n"));
        let count = n / CURATED.len() + usize::from(s < n % CURATED.len());
        if count == 0 {
            text.push_str("- None yet.\n");
        }
        for k in 0..count {
            let entry = words::sentence(&mut rng, 6, 14);
            let evidence = words::sentence(&mut rng, 4, 4);
            let day = words::date(&mut rng);
            text.push_str(&format!(
                "- {day}: {} #{s}-{k} (evidence: {})\n",
                entry.trim_end_matches('.'),
                evidence.trim_end_matches('.')
            ));
            events.push_str(&format!(
                "{{\"timestamp\":\"{day} 12:00 +00:00\",\"type\":\"memory.promoted\",\"kind\":\"preference\",\"section\":\"{section}\",\"text\":\"{}\",\"evidence\":\"{}\",\"agent\":\"agent:{}\"}}\n",
                entry.trim_end_matches('.'),
                evidence.trim_end_matches('.'),
                ["codex", "claude", "scout"][k % 3]
            ));
        }
    }
    for section in OTHER {
        text.push_str(&format!("\n## {section}\n\n- None yet.\n"));
    }
    w.write("memory/long-term.md", &text)?;
    w.write("memory/events.jsonl", &events)?;
    w.write("AGENTS.md", "# Agents\n\nRead awareness/current.md first.\n")?;
    w.write("awareness/current.md", "# Awareness\n\n- Updated: 2026-05-01 10:00 +00:00\n")?;
    Ok(0)
}
