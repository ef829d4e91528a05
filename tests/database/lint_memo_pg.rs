//! Lint's memo on a database: after an agent changes rows through SQL, `lint --format json` and
//! `review list --json` through the store cache and the lint memo say what they say without any
//! cache, and again on the next run.
use crate::support::PINNED_NOW;
use crate::support::pg::{Pg, folio_db, said};

#[test]
fn the_memoised_lint_and_list_agree_with_uncached_ones_after_rows_changed() {
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let Some(pg) = Pg::start() else { return };
    let mut c = pg.opendray_db("brain");
    let url = pg.conninfo("brain");
    folio_gen::fill_database(folio::store::dialect::by_name("opendray-pg").unwrap(), 1200, 3, &url).unwrap();
    let ids: Vec<String> = c
        .query("SELECT id FROM knowledge_nodes WHERE archived_at IS NULL ORDER BY id LIMIT 3", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut env = env.to_vec();
        env.push(("FOLIO_NOW", PINNED_NOW));
        let o = folio_db(s, args, &env);
        assert!(o.status.code().is_some_and(|c| c <= 1), "{}", said(&o));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let lint = ["lint", url.as_str(), "--format", "json"];
    let list = ["review", url.as_str(), "list", "--json"];
    let first = run(&lint, &[]);
    assert_eq!(first, run(&lint, &[("FOLIO_NO_CACHE", "1")]));
    let _ = run(&list, &[]);
    // A node with findings, archived by the second change: its findings must go.
    let v: serde_json::Value = serde_json::from_str(&first).unwrap();
    let gone = v["findings"][0]["entity"].as_str().expect("a finding on a node").to_string();
    let changes = [
        // One node's text rewritten as another's (a near-duplicate, or at least new words).
        (
            "UPDATE knowledge_nodes SET body = (SELECT body FROM knowledge_nodes WHERE id = $2) || ' again' WHERE id = $1",
            vec![&ids[0], &ids[1]],
        ),
        // A node archived: what linked to it no longer resolves.
        ("UPDATE knowledge_nodes SET archived_at = now() WHERE id = $1", vec![&gone]),
    ];
    for (sql, params) in changes {
        let params: Vec<&(dyn postgres::types::ToSql + Sync)> = params.iter().map(|p| *p as _).collect();
        c.execute(sql, &params).unwrap();
        let lint_now = run(&lint, &[]);
        let lint_again = run(&lint, &[]);
        let lint_bare = run(&lint, &[("FOLIO_NO_CACHE", "1")]);
        assert!(lint_now == lint_bare, "{sql}: the memoised lint differs from an uncached one");
        assert!(lint_again == lint_bare, "{sql}: the memoised lint, again, differs");
        let list_now = run(&list, &[]);
        let list_bare = run(&list, &[("FOLIO_NO_CACHE", "1")]);
        assert!(list_now == list_bare, "{sql}: the memoised list differs from an uncached one");
    }
    // The archived node's findings are gone: the comparisons had something to compare.
    let quoted = format!("\"{gone}\"");
    assert!(first.contains(&quoted) && !run(&lint, &[]).contains(&quoted), "{gone}'s findings went");
}
