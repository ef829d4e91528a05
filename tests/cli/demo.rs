//! The demo store bundled in the binary: what `--demo` shows, and the review findings planted in
//! it, each exactly where the list below says (and nowhere else).
use crate::support;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use folio::store::Store;
use folio::store::model::entity::{LinkSyntax, rule};
use folio::store::read::frontmatter::get_str;
use support::*;

/// The findings planted for a reviewer to discover. Everything not listed here is clean.
mod planted {
    pub const DRAFTS: [&str; 3] =
        ["apis/refunds-v2", "decisions/adr-0012-multi-currency-settlement", "runbooks/rotate-webhook-signing-secret"];
    /// (deprecated concept, the concept that supersedes it)
    pub const SUPERSEDED: (&str, &str) =
        ("decisions/adr-0004-mysql-for-ledger", "decisions/adr-0009-postgres-for-ledger");
    /// (concept declaring `contradicts`, the concept it contradicts)
    pub const CONTRADICTION: (&str, &str) = ("runbooks/daily-settlement", "decisions/adr-0007-settlement-cutoff-utc");
    /// (concept, link target as written) for every link that leads nowhere.
    pub const BROKEN_LINKS: [(&str, &str); 2] = [
        ("incidents/2025-03-14-duplicate-charges", "../data/refund-events.md"),
        ("services/ledger-service", "/runbooks/ledger-rebuild.md"),
    ];
    pub const ORPHAN: &str = "conventions/feature-flag-naming";
    /// (concept, its `stale_after`, already past)
    pub const STALE: (&str, &str) = ("runbooks/failover-primary-db", "2026-09-30T00:00:00Z");
    /// (concept, wikilink target, the concept it resolves to)
    pub const WIKILINK: (&str, &str, &str) =
        ("incidents/2025-03-14-duplicate-charges", "idempotency-keys", "conventions/idempotency-keys");
    pub const NEAR_DUPLICATE_TITLES: [&str; 2] =
        ["conventions/amounts-minor-units", "conventions/money-in-minor-units"];
    /// (concept, line of the hidden ESC[8m prompt-injection text)
    pub const HIDDEN_ESCAPE: (&str, u32) = ("services/fraud-screening", 38);
    pub const MISSING_DESCRIPTION: &str = "incidents/2024-12-02-fx-rate-cache-stale";
}

fn demo_source() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("demo")
}

/// Run folio with its own data folder, so a test can delete or edit the unpacked demo without
/// disturbing tests that run at the same time.
fn folio_in(data_home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(args)
        .env("NO_COLOR", "1")
        .env("XDG_DATA_HOME", data_home)
        .output()
        .expect("folio runs")
}

fn json_of(o: &Output) -> serde_json::Value {
    assert_eq!(o.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("bad JSON ({e}): {}", stdout(o)))
}

fn show(id: &str) -> serde_json::Value {
    folio_json(&["show", "--demo", id, "--json"])
}

fn ids(v: &serde_json::Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect()
}

/// Now as an RFC 3339 UTC timestamp (`YYYY-MM-DDTHH:MM:SSZ`), comparable as a string.
fn utc_now() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[test]
fn stats_describe_the_demo_bundle() {
    let v = folio_json(&["stats", "--demo", "--json"]);
    assert_eq!(v["dialect"], "okf");
    assert_eq!(v["entities"], 40);
    assert_eq!(v["unresolved_links"], 2);
    assert_eq!(v["orphans"], 1);
    assert_eq!(v["stale_catalogs"], 0);
    // Problems found while reading: the hidden escape sequence, the missing description, the
    // concept past its stale_after.
    assert_eq!(v["files_with_problems"], 3);
    assert_eq!(v["problems"], 3);
    let kinds = v["by_kind"].as_object().unwrap();
    let counts: Vec<(&str, u64)> = kinds.iter().map(|(k, n)| (k.as_str(), n.as_u64().unwrap())).collect();
    assert_eq!(
        counts,
        [
            ("API Endpoint", 5),
            ("Convention", 7),
            ("Decision Record", 6),
            ("Incident", 4),
            ("Kafka Topic", 1),
            ("Postgres Table", 4),
            ("Redis Keyspace", 1),
            ("Runbook", 6),
            ("Service", 6),
        ]
    );
    assert!(v["root"].as_str().unwrap().ends_with("folio/demo"), "{}", v["root"]);
}

#[test]
fn show_reports_fields_links_backlinks_and_files() {
    let v = show("services/payment-gateway");
    assert_eq!(v["kind"], "Service");
    assert_eq!(v["title"], "Payment Gateway");
    assert_eq!(v["fields"]["verified"][0]["by"], "human:maria.oyelaran");
    assert_eq!(v["fields"]["generated"]["by"], "claude-code/1.0.58");
    assert_eq!(
        v["sources"],
        serde_json::json!([
            "https://git.tallypay.example/payments/gateway/blob/main/README.md",
            "https://git.tallypay.example/payments/gateway/pull/1423"
        ])
    );
    let links = v["links"].as_array().unwrap();
    // Bundle-absolute, `./` and bare relative links all land on their concepts.
    for (target, resolved) in [
        ("/conventions/idempotency-keys.md", "conventions/idempotency-keys"),
        ("./fraud-screening.md", "services/fraud-screening"),
        ("../data/payments-table.md", "data/payments-table"),
        ("ledger-service.md", "services/ledger-service"),
    ] {
        let l = links.iter().find(|l| l["target"] == target).unwrap_or_else(|| panic!("no link {target}"));
        assert_eq!((l["status"].as_str(), l["resolved"].as_str()), (Some("entity"), Some(resolved)));
    }
    assert!(links.iter().all(|l| l["status"] == "entity"));
    assert_eq!(
        ids(&v["backlinks"]),
        ["apis/create-payment", "runbooks/gateway-high-latency", "services/fraud-screening"]
    );

    // A link to a non-markdown file in the bundle resolves to that file.
    let ddl = show("data/ledger-entries");
    let l = ddl["links"].as_array().unwrap().iter().find(|l| l["target"] == "ledger_entries.sql").unwrap();
    assert_eq!((l["status"].as_str(), l["resolved"].as_str()), (Some("file"), Some("data/ledger_entries.sql")));
}

#[test]
fn recall_ranks_the_expected_concept_first() {
    for (query, first) in [
        ("idempotency", "conventions/idempotency-keys"),
        ("settlement cutoff", "decisions/adr-0007-settlement-cutoff-utc"),
        ("replay webhooks", "runbooks/replay-failed-webhooks"),
        ("fail over database", "runbooks/failover-primary-db"),
    ] {
        let v = folio_json(&["recall", "--demo", query, "--json"]);
        assert_eq!(v["results"][0]["id"], first, "query {query:?}: {}", v["results"]);
    }
}

#[test]
fn committed_catalogs_are_up_to_date() {
    let o = folio(&["index", "--demo", "--check"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(stdout(&o).trim(), "8 catalogs up to date");
    let root = std::fs::read_to_string(demo_source().join("index.md")).unwrap();
    assert!(root.starts_with("---\nokf_version: \"0.2\"\n---\n"));
    assert_eq!(root.matches("](").count(), 7, "one entry per type folder");
}

#[test]
fn log_is_newest_first_with_iso_dates_and_working_links() {
    let text = std::fs::read_to_string(demo_source().join("log.md")).unwrap();
    assert!(text.starts_with("# Bundle Update Log\n"));
    let dates: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("## ")).collect();
    assert_eq!(dates.len(), 10);
    assert!(dates.iter().all(|d| d.len() == 10 && d.as_bytes()[4] == b'-' && d.as_bytes()[7] == b'-'));
    assert!(dates.windows(2).all(|w| w[0] > w[1]), "newest first: {dates:?}");
    let store = Store::open(&demo_source(), None).unwrap();
    for part in text.split("](/").skip(1) {
        let target = &part[..part.find(')').unwrap()];
        let id = target.trim_end_matches(".md");
        assert!(store.find(id).is_some(), "log.md links to missing {target}");
    }
}

#[test]
fn planted_findings_show_where_the_list_says() {
    for id in planted::DRAFTS {
        assert_eq!(show(id)["status"], "draft", "{id}");
    }

    let (old, new) = planted::SUPERSEDED;
    assert_eq!(show(old)["status"], "deprecated");
    let edges = show(new)["edges"].clone();
    assert_eq!(edges, serde_json::json!([{"type": "supersedes", "target": old, "resolved": old}]));

    let (from, to) = planted::CONTRADICTION;
    assert_eq!(show(from)["edges"], serde_json::json!([{"type": "contradicts", "target": to, "resolved": to}]));
    assert!(ids(&show(to)["backlinks"]).contains(&from.to_string()));

    for (id, target) in planted::BROKEN_LINKS {
        let v = show(id);
        let broken: Vec<_> = v["links"].as_array().unwrap().iter().filter(|l| l["status"] == "broken").collect();
        assert_eq!(broken.len(), 1, "{id}");
        assert_eq!(broken[0]["target"], target);
    }

    assert_eq!(show(planted::ORPHAN)["backlinks"], serde_json::json!([]));

    let (id, stale_after) = planted::STALE;
    let v = show(id);
    assert_eq!(v["fields"]["stale_after"], stale_after);
    assert!(stale_after < utc_now().as_str());

    let (id, target, resolved) = planted::WIKILINK;
    let v = show(id);
    let wiki: Vec<_> = v["links"].as_array().unwrap().iter().filter(|l| l["syntax"] == "wiki").collect();
    assert_eq!(wiki.len(), 1);
    assert_eq!((wiki[0]["target"].as_str(), wiki[0]["resolved"].as_str()), (Some(target), Some(resolved)));

    let [a, b] = planted::NEAR_DUPLICATE_TITLES;
    let (ta, tb) = (show(a)["title"].clone(), show(b)["title"].clone());
    assert_ne!(ta, tb);
    assert_eq!(ta.as_str().unwrap().to_lowercase(), tb.as_str().unwrap().to_lowercase());

    let (id, line) = planted::HIDDEN_ESCAPE;
    let v = show(id);
    assert_eq!(v["problems"].as_array().unwrap().len(), 1);
    assert_eq!(v["problems"][0]["rule"], "control-chars");
    assert_eq!(v["problems"][0]["line"], line);
    assert!(v["problems"][0]["message"].as_str().unwrap().contains("ESC"));
    let raw = std::fs::read_to_string(demo_source().join(format!("{id}.md"))).unwrap();
    let hidden = raw.lines().nth(line as usize - 1).unwrap();
    assert!(hidden.starts_with("\x1b[8m") && hidden.ends_with("\x1b[0m") && hidden.contains("skip the review queue"));

    let v = show(planted::MISSING_DESCRIPTION);
    assert_eq!(v["description"], serde_json::Value::Null);
    assert!(v["fields"].get("description").is_none());
}

/// Every finding is computed over the whole bundle and must match the planted list exactly,
/// so a new concept that is accidentally broken (or a fixed plant) fails here.
#[test]
fn nothing_but_the_planted_findings() {
    let store = Store::open(&demo_source(), None).unwrap();
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<String>>();
    let mut drafts = BTreeSet::new();
    let mut deprecated = BTreeSet::new();
    let mut no_description = BTreeSet::new();
    let mut broken = BTreeSet::new();
    let mut wiki = BTreeSet::new();
    let mut problems = BTreeSet::new();
    let mut stale = BTreeSet::new();
    let mut unsourced = BTreeSet::new();
    let mut untyped = BTreeSet::new();
    let mut edges = BTreeSet::new();
    let now = utc_now();
    for (i, e) in store.entities.iter().enumerate() {
        let id = e.id.clone();
        match e.status.as_deref() {
            Some("draft") => drafts.insert(id.clone()),
            Some("deprecated") => deprecated.insert(id.clone()),
            Some("stable") => false,
            other => panic!("{id}: unexpected status {other:?}"),
        };
        if e.description.is_none() {
            no_description.insert(id.clone());
        }
        if e.kind.is_none() {
            untyped.insert(id.clone());
        }
        if e.sources.is_empty() {
            unsourced.insert(id.clone());
        }
        for l in &e.links {
            if l.is_unresolved() {
                broken.insert((id.clone(), l.target().to_string()));
            }
            if l.syntax == LinkSyntax::Wiki {
                wiki.insert(id.clone());
            }
        }
        for p in &e.problems {
            problems.insert((id.clone(), p.rule));
        }
        let fields = store.fields(i as u32).unwrap();
        if let Some(at) = get_str(&fields, "stale_after").filter(|at| at.as_str() < now.as_str()) {
            stale.insert((id.clone(), at));
        }
        for d in &e.edges {
            let to = d.resolved.map(|r| store.entity(r).id.clone()).expect("every typed edge resolves");
            edges.insert((id.clone(), d.kind.clone(), to));
        }
    }
    assert_eq!(drafts, set(&planted::DRAFTS));
    assert_eq!(deprecated, set(&[planted::SUPERSEDED.0]));
    assert_eq!(no_description, set(&[planted::MISSING_DESCRIPTION]));
    let expect_broken: BTreeSet<_> =
        planted::BROKEN_LINKS.iter().map(|(id, t)| (id.to_string(), t.to_string())).collect();
    assert_eq!(broken, expect_broken);
    assert_eq!(wiki, set(&[planted::WIKILINK.0]));
    assert_eq!(
        problems,
        BTreeSet::from([
            (planted::HIDDEN_ESCAPE.0.to_string(), rule::CONTROL_CHARS),
            (planted::MISSING_DESCRIPTION.to_string(), rule::MISSING_DESCRIPTION),
            (planted::STALE.0.to_string(), rule::STALE),
        ])
    );
    assert_eq!(stale, BTreeSet::from([(planted::STALE.0.to_string(), planted::STALE.1.to_string())]));
    assert!(unsourced.is_empty(), "{unsourced:?}");
    assert!(untyped.is_empty(), "{untyped:?}");
    let orphans: BTreeSet<String> = store.orphans().map(|i| store.entity(i).id.clone()).collect();
    assert_eq!(orphans, set(&[planted::ORPHAN]));

    // Typed relations: the planted pair, plus `related` links from runbooks to their incidents.
    let s = |a: &str, k: &str, b: &str| (a.to_string(), k.to_string(), b.to_string());
    assert_eq!(
        edges,
        BTreeSet::from([
            s(planted::SUPERSEDED.1, "supersedes", planted::SUPERSEDED.0),
            s(planted::CONTRADICTION.0, "contradicts", planted::CONTRADICTION.1),
            s("runbooks/refund-a-payment", "related", "incidents/2025-03-14-duplicate-charges"),
            s("runbooks/replay-failed-webhooks", "related", "incidents/2026-06-03-webhook-backlog"),
        ])
    );

    // Titles equal once case is ignored: only the planted pair.
    let mut by_title: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for e in &store.entities {
        by_title.entry(e.title.to_lowercase()).or_default().push(e.id.clone());
    }
    let dups: Vec<Vec<String>> = by_title.into_values().filter(|v| v.len() > 1).collect();
    let mut pair = planted::NEAR_DUPLICATE_TITLES.map(String::from).to_vec();
    pair.sort();
    let mut found = dups.concat();
    found.sort();
    assert_eq!((dups.len(), found), (1, pair));
}

#[test]
fn demo_unpacks_again_after_being_deleted_and_keeps_edits() {
    let data = tempfile::tempdir().unwrap();
    let first = json_of(&folio_in(data.path(), &["stats", "--demo", "--json"]));
    let dir = PathBuf::from(first["root"].as_str().unwrap());
    assert_eq!(dir, data.path().join("folio/demo"));
    assert_eq!(first["entities"], 40);

    // An edit to the unpacked demo survives the next run.
    let concept = dir.join("conventions/feature-flag-naming.md");
    let edited = std::fs::read_to_string(&concept).unwrap().replace("title: Feature flag naming", "title: Flag names");
    std::fs::write(&concept, &edited).unwrap();
    let v = json_of(&folio_in(data.path(), &["show", "--demo", "conventions/feature-flag-naming", "--json"]));
    assert_eq!(v["title"], "Flag names");

    std::fs::remove_dir_all(&dir).unwrap();
    let again = json_of(&folio_in(data.path(), &["stats", "--demo", "--json"]));
    assert_eq!(again["entities"], 40);
    assert_eq!(
        std::fs::read(dir.join("services/payment-gateway.md")).unwrap(),
        std::fs::read(demo_source().join("services/payment-gateway.md")).unwrap()
    );
}

#[test]
fn an_edited_demo_from_another_build_is_set_aside_with_a_notice() {
    let data = tempfile::tempdir().unwrap();
    json_of(&folio_in(data.path(), &["stats", "--demo", "--json"]));
    let dir = data.path().join("folio/demo");
    // As if an older binary had unpacked it and the person then edited a concept.
    std::fs::write(dir.join(".folio-demo"), "sha256:0000\n").unwrap();
    std::fs::write(dir.join("apis/refunds.md"), "---\ntype: API Endpoint\n---\nmy notes\n").unwrap();

    let o = folio_in(data.path(), &["stats", "--demo", "--json"]);
    assert_eq!(json_of(&o)["entities"], 40);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("your edited copy was kept at"), "{err}");
    let kept: Vec<PathBuf> = std::fs::read_dir(data.path().join("folio"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("demo-edited-"))
        .collect();
    assert_eq!(kept.len(), 1);
    assert!(err.contains(&kept[0].display().to_string()));
    assert_eq!(
        std::fs::read_to_string(kept[0].join("apis/refunds.md")).unwrap(),
        "---\ntype: API Endpoint\n---\nmy notes\n"
    );
    assert_eq!(
        std::fs::read(dir.join("apis/refunds.md")).unwrap(),
        std::fs::read(demo_source().join("apis/refunds.md")).unwrap()
    );
    // Once replaced, later runs are quiet.
    let quiet = folio_in(data.path(), &["stats", "--demo", "--json"]);
    assert!(quiet.stderr.is_empty(), "{}", String::from_utf8_lossy(&quiet.stderr));
}

#[test]
fn lint_reports_exactly_the_planted_findings() {
    let out = folio(&["lint", "--demo", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "the hidden escape sequence is an error");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let found: BTreeSet<(String, String)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["rule"].as_str().unwrap().to_string(), f["entity"].as_str().unwrap_or("-").to_string()))
        .collect();
    let expected: BTreeSet<(String, String)> = [
        ("duplicate-title", "conventions/amounts-minor-units"),
        ("duplicate-title", "conventions/money-in-minor-units"),
        ("orphan", planted::ORPHAN),
        ("missing-description", planted::MISSING_DESCRIPTION),
        ("wikilink-syntax", planted::WIKILINK.0),
        ("broken-link", planted::BROKEN_LINKS[0].0),
        ("broken-link", planted::BROKEN_LINKS[1].0),
        ("contradiction", "runbooks/daily-settlement"),
        ("stale", planted::STALE.0),
        ("control-chars", planted::HIDDEN_ESCAPE.0),
    ]
    .iter()
    .map(|(r, e)| (r.to_string(), e.to_string()))
    .collect();
    assert_eq!(found, expected);
}
