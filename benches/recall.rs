//! Recall latency at 100,000 entities: the time from a query change (one keystroke) to the
//! first updated snapshot of the streaming engine, as the TUI sees it. Prints the median and
//! the 99th percentile; the target is ≤ 16 ms median and ≤ 50 ms p99.
use std::sync::Arc;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use folio::recall::engine::Engine;
use folio::store::Store;
use folio::store::dialect::DialectKind;

const ENTITIES: usize = 100_000;
const WORDS: &[&str] = &[
    "gross",
    "margin",
    "revenue",
    "churn",
    "cohort",
    "policy",
    "ledger",
    "forecast",
    "inventory",
    "supplier",
    "customer",
    "retention",
    "pricing",
    "discount",
    "shipping",
    "warehouse",
    "attested",
    "computation",
    "quarter",
    "fiscal",
    "budget",
    "variance",
    "segment",
    "region",
    "channel",
    "basket",
    "conversion",
    "refund",
];
/// What a person types, keystroke by keystroke (then erases, then a filter).
const QUERIES: &[&str] = &["gross margin", "cust ret", "fiscal qtr budget", "kind:metric rev", "tag:finance ware"];

fn word(n: usize) -> &'static str {
    WORDS[n % WORDS.len()]
}

/// Generate a vault of `ENTITIES` entities with titles, tags, kinds and descriptions.
fn generate(root: &std::path::Path) {
    for folder in 0..100 {
        let d = root.join(format!("area-{folder:02}"));
        std::fs::create_dir_all(&d).unwrap();
        for i in 0..ENTITIES / 100 {
            let n = folder * 1000 + i;
            let text = format!(
                "---\ntitle: {} {} {n}\ntype: {}\ntags: [{}, {}]\ndescription: The {} of the {} {} per {}.\n---\n# T\n\nBody.\n",
                word(n),
                word(n / 7),
                ["metric", "policy", "note"][n % 3],
                ["finance", "ops", "growth"][n % 3],
                word(n / 3),
                word(n / 11),
                word(n / 13),
                word(n / 17),
                word(n / 19),
            );
            std::fs::write(d.join(format!("e{i}.md")), text).unwrap();
        }
    }
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    generate(dir.path());
    let store = Arc::new(Store::load(dir.path(), DialectKind::Vault, "bench".into()));
    assert_eq!(store.entities.len(), ENTITIES);
    eprintln!("generated and loaded {ENTITIES} entities in {:?}", started.elapsed());

    let (tx, rx) = channel();
    let notify: Arc<dyn Fn() + Sync + Send> = Arc::new(move || {
        let _ = tx.send(());
    });
    let mut engine = Engine::new(store, Arc::new(Vec::new()), notify, false);
    let wait_until = |engine: &mut Engine, changed: bool, from: Instant| {
        let mut changed = changed;
        while !changed && from.elapsed() < Duration::from_secs(5) {
            let _ = rx.recv_timeout(Duration::from_millis(1));
            changed = engine.tick();
        }
        from.elapsed()
    };
    let mut samples = Vec::new();
    for round in 0..3 {
        for q in QUERIES {
            // Items for a new filter set stream in first (not a keystroke latency: settle it).
            let first: String = q.chars().take_while(|c| !c.is_whitespace()).collect();
            engine.set_query(&first);
            while engine.running() {
                let _ = rx.recv_timeout(Duration::from_millis(5));
                engine.tick();
            }
            let typed: Vec<char> = q.chars().collect();
            for n in first.chars().count() + 1..=typed.len() {
                let text: String = typed[..n].iter().collect();
                let t = Instant::now();
                let changed = engine.set_query(&text);
                samples.push(wait_until(&mut engine, changed, t));
            }
            // Erasing is not an append: nucleo rematches everything.
            for n in (first.chars().count()..typed.len()).rev() {
                let text: String = typed[..n].iter().collect();
                let t = Instant::now();
                let changed = engine.set_query(&text);
                samples.push(wait_until(&mut engine, changed, t));
            }
        }
        eprintln!("round {round}: {} keystrokes so far", samples.len());
    }
    samples.sort();
    let pct = |p: f64| samples[((samples.len() - 1) as f64 * p).round() as usize];
    println!(
        "recall at {ENTITIES} entities: {} keystrokes, median {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        samples.len(),
        pct(0.5).as_secs_f64() * 1000.0,
        pct(0.99).as_secs_f64() * 1000.0,
        samples.last().unwrap().as_secs_f64() * 1000.0
    );
}
