//! evolve's own reader against folio's (issue 39): altk-evolve-core 1.7.1's
//! `altk_evolve.viz.data` (`load_entities`, `load_entity_detail`), run in the reference
//! tools' Python (`.ci/reference-tools`), on every evolve corpus and fixture, and before and
//! after every write folio offers on an evolve store (approve, veto, set, mv, migrate --to okf,
//! undo).
//!
//! Compared per file under `entities/`: whether it is an entity, its slug, `type` (evolve's
//! reader defaults it to `guideline`), `trigger`, `trajectory`, and the fact and rationale the
//! reader splits the body into (folio's body, split by the reader's rule: this checks where
//! each ends the frontmatter). A write must change the reader's view by exactly its intended
//! change. Every difference not listed in `EXPLAINED` (with why) fails the test, and so does a
//! listed one that no longer happens.
use crate::support::{self, reference};
use folio::store::Store;
use folio::store::read::frontmatter;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use support::*;

/// The reader's view of one file: slug, type, trigger, trajectory, content, rationale, and
/// whether `load_entity_detail` finds it by its slug.
type View = BTreeMap<String, BTreeMap<&'static str, String>>;

const FIELDS: &[&str] = &["slug", "type", "trigger", "trajectory", "content", "rationale"];

/// Differences between evolve's reader and folio, each with why: (case, file under
/// `entities/` or `*`, field or `entity`, why). Case `*` holds in every case.
const EXPLAINED: &[(&str, &str, &str, &str)] = &[
    (
        "*",
        "subscribed/alice-guidelines/README.md",
        "entity",
        "A subscribed clone's own README: evolve's viz reader takes every `.md` under `entities/` (`rglob`); \
         evolve's recall (`load_manifest`) skips a file without `type` and `trigger`, and folio reads none at a \
         store top (docs/formats/evolve.md).",
    ),
    (
        "migrate (intended)",
        "*index.md",
        "entity",
        "The OKF catalogs `migrate --to okf` writes (the seed's alignment, issue 272): the viz reader of 1.7.1 \
         predates them and reads each as an entity of type `guideline`; folio reads them as catalogs.",
    ),
    (
        "migrate (after)",
        "*index.md",
        "entity",
        "The same catalogs, read as entities by evolve's viz reader only (see above).",
    ),
    (
        "migrate (intended)",
        "guideline/prefer-git-worktrees-for-parallel-branches.md",
        "trigger",
        "This file has both `description` and the legacy `trigger`: renaming would lose one, so migrate keeps \
         both (folio reports `legacy-trigger`), and evolve's reader still reads the `trigger`.",
    ),
];

const READER: &str = r#"
import json, sys
from pathlib import Path
from altk_evolve.viz import data
evolve_dir = Path(sys.argv[1])
root = evolve_dir / "entities"
files = []
for f in sorted(root.rglob("*.md")):
    try:
        files.append((f.relative_to(root).as_posix(), data._parse_entity_file(f)))
    except Exception:
        pass
assert [e for _, e in files] == data.load_entities(evolve_dir), "load_entities reads otherwise"
out = {}
for rel, e in files:
    e = dict(e)
    e["found"] = "yes" if data.load_entity_detail(evolve_dir, e["slug"]) == e else "no"
    out[rel] = e
print(json.dumps(out))
"#;

/// evolve's reader on the project at `project` (its `.evolve/`), or None without the tools.
fn evolve_view(project: &Path) -> Option<View> {
    reader_view(&project.join(".evolve"))
}

/// evolve's reader on `evolve_dir` (the folder holding `entities/`).
fn reader_view(evolve_dir: &Path) -> Option<View> {
    let python = reference::python()?;
    let o = std::process::Command::new(python).arg("-c").arg(READER).arg(evolve_dir).output().unwrap();
    assert!(o.status.success(), "evolve's reader: {}", String::from_utf8_lossy(&o.stderr));
    let v: BTreeMap<String, Value> = serde_json::from_slice(&o.stdout).unwrap();
    Some(
        v.into_iter()
            .map(|(path, e)| {
                let mut f: BTreeMap<&'static str, String> =
                    FIELDS.iter().map(|k| (*k, e[*k].as_str().unwrap_or_default().to_string())).collect();
                f.insert("found", e["found"].as_str().unwrap().to_string());
                (path, f)
            })
            .collect(),
    )
}

/// The reader's split of a body into the fact and its `## Rationale`.
fn split(body: &str) -> (String, String) {
    let body = body.trim();
    let content = match body.find("\n## Rationale") {
        Some(i) => body[..i].trim().to_string(),
        None => body.to_string(),
    };
    let rationale = match body.find("## Rationale") {
        Some(i) => {
            let rest = body[i + "## Rationale".len()..].trim_start_matches([' ', '\t', '\r', '\n']);
            let end = rest.find("\n## ").unwrap_or(rest.len());
            rest[..end].trim().to_string()
        }
        None => String::new(),
    };
    (content, rationale)
}

/// folio's view of the same store: its entities, their fields as folio reads them.
fn folio_view(project: &Path) -> View {
    let store = Store::open(project, None).unwrap();
    let mut out = View::new();
    let by_stem =
        |stem: &str| store.entities.iter().filter(|e| e.path.rsplit('/').next() == Some(&format!("{stem}.md"))).count();
    for (i, e) in store.entities.iter().enumerate() {
        let f = store.fields(i as _).unwrap();
        let get = |k: &str| frontmatter::get_str(&f, k).unwrap_or_default();
        let text = std::fs::read_to_string(store.abs_path(&e.path)).unwrap();
        let (content, rationale) = split(text.get(e.body_start as usize..).unwrap_or(""));
        let slug = e.path.rsplit('/').next().unwrap().trim_end_matches(".md").to_string();
        let mut v = BTreeMap::new();
        v.insert("slug", slug.clone());
        v.insert("type", e.kind.as_deref().unwrap_or("").to_string());
        v.insert("trigger", get("trigger"));
        v.insert("trajectory", get("trajectory"));
        v.insert("content", content);
        v.insert("rationale", rationale);
        v.insert("found", if by_stem(&slug) == 1 { "yes" } else { "no" }.to_string());
        out.insert(e.path.clone(), v);
    }
    out
}

/// Every difference of `a` (evolve's reader) from `b` (folio, or the intended view), as
/// `(file, field, line)`.
fn differences(a: &View, b: &View, a_name: &str, b_name: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for (path, x) in a {
        match b.get(path) {
            None => {
                out.push((path.clone(), "entity".into(), format!("{a_name} reads it as an entity, {b_name} does not")))
            }
            Some(y) => {
                for (k, v) in x {
                    if y.get(k) != Some(v) {
                        let w = y.get(k).cloned().unwrap_or_default();
                        out.push((path.clone(), k.to_string(), format!("{a_name} {v:?}, {b_name} {w:?}")));
                    }
                }
            }
        }
    }
    for path in b.keys().filter(|p| !a.contains_key(*p)) {
        out.push((path.clone(), "entity".into(), format!("{b_name} reads it as an entity, {a_name} does not")));
    }
    out
}

/// The differences not explained, and the explanations for `case` that matched nothing.
fn unexplained(case: &str, found: &[(String, String, String)], used: &mut Vec<usize>) -> Vec<String> {
    let mut out = Vec::new();
    for (path, field, what) in found {
        let hit = EXPLAINED.iter().position(|(c, p, f, _)| {
            let path_matches = match p.strip_prefix('*') {
                Some(end) => path.ends_with(end),
                None => p == path,
            };
            (*c == "*" || *c == case) && path_matches && (*f == "*" || f == field)
        });
        match hit {
            Some(i) => used.push(i),
            None => out.push(format!("{case}: {path}: {field}: {what}")),
        }
    }
    out
}

/// A scratch project with `entities` (a folder laid out as `.evolve/entities`) inside.
fn project_from(entities: &Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    copy_tree(entities, &project.join(".evolve/entities"));
    make_writable(&project);
    (dir, project)
}

/// The stores: every evolve corpus and fixture, as a project each.
fn stores() -> Vec<(String, tempfile::TempDir, PathBuf)> {
    let mut out = Vec::new();
    for (name, entities) in [
        ("demo-workspace", Some(corpus("evolve/altk-evolve-demo-workspace").join(".evolve/entities"))),
        ("public-repo-vinodmut", corpus_or_skip("evolve/public-repo-vinodmut")),
        ("fixture evolve-project", Some(fixture("evolve-project/.evolve/entities"))),
        ("fixture evolve-wikilinks", Some(fixture("evolve-wikilinks/.evolve/entities"))),
    ] {
        let Some(entities) = entities else { continue };
        let (dir, project) = project_from(&entities);
        out.push((name.to_string(), dir, project));
    }
    out
}

/// Every evolve corpus and fixture: the reader's entities and fields against folio's.
fn reading(problems: &mut Vec<String>, used: &mut Vec<usize>) -> Option<()> {
    for (name, _dir, project) in stores() {
        let evolve = evolve_view(&project)?;
        let found = differences(&evolve, &folio_view(&project), "evolve", "folio");
        problems.extend(unexplained(&name, &found, used));
    }
    Some(())
}

/// The table holds every difference there is, and nothing that no longer happens.
#[test]
fn evolves_reader_and_folio_agree_on_every_corpus_and_every_write_but_for_the_table() {
    let (mut problems, mut used) = (Vec::new(), Vec::new());
    if reading(&mut problems, &mut used).is_none() || writing(&mut problems, &mut used).is_none() {
        return;
    }
    for (i, (case, path, field, _)) in EXPLAINED.iter().enumerate() {
        if !used.contains(&i) {
            problems.push(format!("explained but no longer seen: {case}: {path}: {field}"));
        }
    }
    assert!(problems.is_empty(), "unexplained differences:\n{}", problems.join("\n"));
}

/// One write folio offers, run on a scratch copy of the evolve fixture project, and the change
/// it means in evolve's reader's terms.
struct Write<'a> {
    name: &'a str,
    /// Where folio is pointed, inside the project (`{P}` in `args`, and the undo's store).
    at: &'a str,
    args: &'a [&'a str],
    intended: fn(&View) -> View,
}

const RIPGREP: &str = "guideline/prefer-ripgrep-over-grep-for-code-search.md";
const FOCUSED: &str = "guideline/run-focused-tests-on-shared-machines.md";

fn same(v: &View) -> View {
    v.clone()
}

fn vetoed(v: &View) -> View {
    let mut v = v.clone();
    v.remove(RIPGREP);
    v
}

fn clone_vetoed(v: &View) -> View {
    let mut v = v.clone();
    v.remove("subscribed/alice-guidelines/guideline/use-uv-run-for-scripts.md");
    v
}

fn trigger_set(v: &View) -> View {
    let mut v = v.clone();
    v.get_mut(RIPGREP).unwrap().insert("trigger", "When searching code".into());
    v
}

/// The file renamed, and the `[[links]]` naming it renamed with it.
fn moved(v: &View) -> View {
    let mut out = View::new();
    for (path, f) in v {
        let mut f = f.clone();
        for part in ["content", "rationale"] {
            let text = f[part].replace("[[run-focused-tests-on-shared-machines]]", "[[focused-tests]]");
            f.insert(part, text);
        }
        if path == FOCUSED {
            f.insert("slug", "focused-tests".into());
            out.insert("guideline/focused-tests.md".into(), f);
        } else {
            out.insert(path.clone(), f);
        }
    }
    out
}

/// `trigger` renamed `description` (OKF's name, which evolve's reader does not read), and the
/// `[[slug]]` links made markdown links to the bundle paths (OKF has no wikilinks).
fn migrated(v: &View) -> View {
    let mut out = View::new();
    for (path, f) in v {
        let mut f = f.clone();
        f.insert("trigger", String::new());
        for part in ["content", "rationale"] {
            let text = markdown_links(&f[part], v);
            f.insert(part, text);
        }
        out.insert(path.clone(), f);
    }
    out
}

/// `[[slug]]` as `[slug](/path.md)` where one file of the view has that stem.
fn markdown_links(text: &str, v: &View) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find("[[") {
        let Some(close) = rest[open..].find("]]") else { break };
        let slug = &rest[open + 2..open + close];
        let paths: Vec<&String> = v.keys().filter(|p| p.rsplit('/').next() == Some(&format!("{slug}.md"))).collect();
        out += &rest[..open];
        match paths[..] {
            [path] => out += &format!("[{slug}](/{path})"),
            _ => out += &rest[open..open + close + 2],
        }
        rest = &rest[open + close + 2..];
    }
    out + rest
}

/// Each write on the fixture project: the reader's view after it is the view before with the
/// write's intended change, folio and the reader agree after it, and its undo restores the view.
fn writing(problems: &mut Vec<String>, used: &mut Vec<usize>) -> Option<()> {
    let writes = [
        Write {
            name: "approve",
            at: "",
            args: &["review", "{P}", "approve", "guideline/prefer-ripgrep-over-grep-for-code-search"],
            intended: same,
        },
        Write {
            name: "veto",
            at: "",
            args: &[
                "review",
                "{P}",
                "veto",
                "guideline/prefer-ripgrep-over-grep-for-code-search",
                "--reason",
                "IDE search",
            ],
            intended: vetoed,
        },
        // A subscribed clone opened on its own is part of the project's store: its veto leaves
        // the tree evolve recalls (it was read as a plain vault, whose archive copy stayed
        // inside that tree).
        Write {
            name: "veto in a subscribed clone",
            at: ".evolve/entities/subscribed/alice-guidelines",
            args: &[
                "review",
                "{P}",
                "veto",
                "subscribed/alice-guidelines/guideline/use-uv-run-for-scripts",
                "--reason",
                "x",
            ],
            intended: clone_vetoed,
        },
        Write {
            name: "set",
            at: "",
            args: &[
                "set",
                "{P}",
                "guideline/prefer-ripgrep-over-grep-for-code-search",
                "trigger",
                "When searching code",
            ],
            intended: trigger_set,
        },
        Write {
            name: "mv",
            at: "",
            args: &["mv", "{P}", "guideline/run-focused-tests-on-shared-machines", "guideline/focused-tests"],
            intended: moved,
        },
        Write { name: "migrate", at: "", args: &["migrate", "{P}", "--to", "okf"], intended: migrated },
    ];
    for w in &writes {
        let (_dir, project) = project_from(&fixture("evolve-project/.evolve/entities"));
        let at = project.join(w.at);
        let p = at.to_str().unwrap();
        let before = evolve_view(&project)?;
        let args: Vec<&str> =
            w.args.iter().map(|a| if *a == "{P}" { p } else { a }).chain(["--as", "human:ref"]).collect();
        let o = folio(&args);
        assert!(o.status.success(), "{}: {}", w.name, String::from_utf8_lossy(&o.stderr));
        let after = evolve_view(&project).unwrap();
        let case = format!("{} (intended)", w.name);
        let found = differences(&after, &(w.intended)(&before), "evolve after", "the intended change");
        problems.extend(unexplained(&case, &found, used));
        let found = differences(&after, &folio_view(&project), "evolve", "folio");
        problems.extend(unexplained(&format!("{} (after)", w.name), &found, used));
        let o = folio(&["undo", p, "--as", "human:ref"]);
        assert!(o.status.success(), "{}: undo: {}", w.name, String::from_utf8_lossy(&o.stderr));
        let found = differences(&evolve_view(&project).unwrap(), &before, "evolve after the undo", "evolve before");
        problems.extend(unexplained(&format!("{} (undo)", w.name), &found, used));
    }
    // A bare guideline folder (a published repository) keeps vetoed files in its own `.folio/`,
    // inside the tree: under a name evolve's `**/*.md` readers never take.
    let dir = tempfile::tempdir().unwrap();
    let bare = dir.path().join("bare");
    copy_tree(&fixture("evolve-project/.evolve/entities/subscribed/alice-guidelines"), &bare.join("entities"));
    make_writable(&bare);
    let entities = bare.join("entities");
    let e = entities.to_str().unwrap();
    let before = reader_view(&bare)?;
    let veto = [
        "review",
        e,
        "--dialect",
        "evolve",
        "veto",
        "guideline/use-uv-run-for-scripts",
        "--reason",
        "x",
        "--as",
        "human:ref",
    ];
    let o = folio(&veto);
    assert!(o.status.success(), "bare veto: {}", String::from_utf8_lossy(&o.stderr));
    assert!(entities.join(".folio/vetoed/guideline/use-uv-run-for-scripts.md.vetoed").is_file());
    let mut intended = before.clone();
    intended.remove("guideline/use-uv-run-for-scripts.md");
    let after = reader_view(&bare)?;
    problems.extend(unexplained(
        "bare veto (intended)",
        &differences(&after, &intended, "evolve after", "the intended change"),
        used,
    ));
    let o = folio(&["undo", e, "--dialect", "evolve", "--as", "human:ref"]);
    assert!(o.status.success(), "bare undo: {}", String::from_utf8_lossy(&o.stderr));
    let undone = reader_view(&bare)?;
    problems.extend(unexplained(
        "bare veto (undo)",
        &differences(&undone, &before, "evolve after the undo", "evolve before"),
        used,
    ));
    Some(())
}
