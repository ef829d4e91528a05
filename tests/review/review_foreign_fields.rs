//! A verdict that records itself inside a mapping field (opendray's `provenance.approved`,
//! AIP-10's `metadata.folio.vetoed`) never replaces what an agent wrote in that field's place.
//! An agent's `provenance: "imported from the ops wiki"` is valid YAML and was turned into
//! `provenance: {approved: …}` by one approval, the agent's words gone. Now the verdict is
//! refused in one line naming the file and the field, and the store keeps every byte; a field
//! that is empty or `null` holds nothing to lose and takes the record as before.
use crate::support;
use support::*;

use std::path::Path;

fn verdict(store: &Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["review", store.to_str().unwrap()];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--as", "human:ann"]);
    folio(&all)
}

/// The fixture's file `rel` with its line `from` replaced by `to`.
fn set_line(root: &Path, rel: &str, from: &str, to: &str) {
    let path = root.join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{rel}: {text}");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
}

/// A fixture's file with one line replaced by what an agent wrote, and the verdict to try.
struct Case {
    fixture: &'static str,
    file: &'static str,
    line: &'static str,
    agent_wrote: &'static str,
    verdict: &'static [&'static str],
}

#[test]
fn a_record_field_an_agent_wrote_otherwise_is_never_replaced() {
    let opendray = |agent_wrote, verdict| Case {
        fixture: "opendray-homelab",
        file: "facts/fact-pg-version.md",
        line: "provenance: { source: reflection }",
        agent_wrote,
        verdict,
    };
    let aip10 = |agent_wrote| Case {
        fixture: "aip10-wiki",
        file: "concepts/cost-cut-plan.md",
        line: "tags: [finance, costs]",
        agent_wrote,
        verdict: &["veto", "cost-cut-plan", "--reason", "wrong"],
    };
    for c in [
        opendray("provenance: \"imported from the ops wiki, 2025\"", &["veto", "fact-pg-version", "--reason", "wrong"]),
        opendray("provenance: [run-1, run-2]", &["promote", "fact-pg-version"]),
        aip10("tags: [finance, costs]\nmetadata: kept by the board's agent"),
        aip10("tags: [finance, costs]\nmetadata:\n  folio: 3"),
    ] {
        let (_d, root) = scratch(&fixture(c.fixture));
        set_line(&root, c.file, c.line, c.agent_wrote);
        let before = tree(&root, &[]);
        let o = verdict(&root, c.verdict);
        let err = String::from_utf8_lossy(&o.stderr);
        let what = format!("{:?} on {:?}", c.verdict, c.agent_wrote);
        assert!(!o.status.success(), "{what}: the verdict went through");
        assert_eq!(err.trim_end().lines().count(), 1, "{what}: one line: {err}");
        assert!(err.contains(c.file) && err.contains("not a mapping") && err.contains("nothing was written"), "{err}");
        assert_eq!(tree(&root, &[]), before, "{what}: the store changed");
    }
}

#[test]
fn an_empty_or_null_record_field_takes_the_verdict() {
    for to in ["provenance: null", "provenance:", "provenance: ''"] {
        let (_d, root) = scratch(&fixture("opendray-homelab"));
        set_line(&root, "facts/fact-pg-version.md", "provenance: { source: reflection }", to);
        let o = verdict(&root, &["promote", "fact-pg-version"]);
        assert!(o.status.success(), "{to}: {}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(root.join("facts/fact-pg-version.md")).unwrap();
        assert!(text.contains("promoted_from: candidate"), "{to}: {text}");
    }
}
